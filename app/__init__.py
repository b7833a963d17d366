"""Pressroom: HTML to PDF and images, screenshots, PDF merging and browser scripts."""

__version__ = "0.1.0"
