"""Test fixture: a third-party plugin whose importer and detector cannot be imported."""
