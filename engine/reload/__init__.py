"""Live reload: a new snapshot beside the old one, swapped in whole, or the old one kept."""
