"""Explorer widgets (ipywidgets), thin over the pure functions; drivable from Python."""
