"""Test fixture: a third-party plugin with a malformed manifest."""
