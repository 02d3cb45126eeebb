"""Tries to bind a handler outside its own code and to add manifests it does not ship."""


def register(ctx):
    ctx.add_handler_root("subprocess")
