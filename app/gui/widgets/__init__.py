"""Widgets the tabs are built from: editors, the preview, the options form, the message bar."""
