import threading

RELEASE = threading.Event()


def register(ctx):
    RELEASE.wait(60)  # the test sets it when done; the engine must not wait for it
    ctx.add_hook("pre_tool_call", lambda **_: None)  # too late: the context is sealed
