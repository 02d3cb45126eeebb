raise RuntimeError("module failed at import")
