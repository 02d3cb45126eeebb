"""Compiling a project: manifest files → located checks → linked names → bound handlers → a Snapshot.

``loader`` runs the whole pipeline (``ProjectLoader``); ``structure`` checks each document
against its kind's schema, ``link`` checks what spans documents, ``binding`` resolves the
dotted handler paths under the allowed roots.
"""
