"""Data the app draws from: synthetic emoji scenes and user images decoded safely (pure numpy + Pillow)."""
