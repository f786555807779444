"""Cooperative environments in JAX, wrapped for agents that read symbolic state."""
