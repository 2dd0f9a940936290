"""Window actions contributed by feature modules.

``ui.actions.tagging`` (the tagging desk, added later) exposes ``install_tagging(main_window)``;
the main window calls it when the module exists.
"""
