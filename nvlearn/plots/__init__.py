"""Figures for the course (matplotlib); see the submodules. Each function returns a Figure."""

__all__: list[str] = []   # the submodules are imported by name, not re-exported
