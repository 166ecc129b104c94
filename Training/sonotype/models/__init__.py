"""Model definitions: the seed-000 audio transformer family used by the built-in model."""
