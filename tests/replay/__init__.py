"""A replay of real adopted proposals (Agora Nomic): read, carried out, compared."""
