"""The tabs of the window: one per operation."""
