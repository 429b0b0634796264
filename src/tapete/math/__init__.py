"""Exact analysis, strategy and fast simulation kernels (tapete analyze)."""
