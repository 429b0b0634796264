"""Validated settings models, one per game; regulation bounds are validators."""
