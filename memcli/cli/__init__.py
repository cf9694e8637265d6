"""The Typer layer: parse arguments, call the core, render, pick the exit code."""
