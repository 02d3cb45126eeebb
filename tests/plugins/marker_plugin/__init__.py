"""A plugin whose import leaves a mark: it must never be imported unless enabled."""

import os
from pathlib import Path

Path(os.environ["HERMES_TEST_PLUGIN_MARKER"]).write_text("imported\n")


def register(ctx):
    pass
