"""Figures for the course (matplotlib); see the submodules. Each function returns a Figure."""
