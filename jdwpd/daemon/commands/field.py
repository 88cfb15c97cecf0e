"""Field command set (8): the spec defines no commands in it."""

SET_NAME = "Field"
HANDLERS: dict = {}
