"""What a world provides to the world-independent programs of the repository (interfaces only)."""
