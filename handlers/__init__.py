"""The builtin pack's handlers.

Manifests bind them as ``handlers.<module>:<function>``; the engine imports this
package under a private name, so a user's own ``handlers`` package never
collides with it. Modules here use relative imports only.
"""
