"""Capture: turn hook payloads and piped text into observations, cheaply."""
