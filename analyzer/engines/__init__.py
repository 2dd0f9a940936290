"""Analysis engines other than the in-process one (``trajscope analyze --engine ...``).

Nothing is imported here: an engine's heavy backend (e.g. Ray) is imported only inside its
own module, so the local engine never pays for it.
"""
