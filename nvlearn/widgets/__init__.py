"""Explorer widgets (ipywidgets), thin over the pure functions; drivable from Python."""

__all__: list[str] = []   # the submodules are imported by name, not re-exported
