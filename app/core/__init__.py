"""Plain-Python heart of Pressroom: jobs, results, errors, the engine interface, settings.

Nothing here imports Qt, Playwright or an HTTP library (an import-linter contract checks it).
"""
