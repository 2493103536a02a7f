"""GTR: geo-temporal reasoning over camera networks, in text (GTR-Bench without the pixels)."""

from tasks.gtr import geo_location  # noqa: F401  (registers its task)
