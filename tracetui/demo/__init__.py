"""The bundled demo session: transcripts the project writes itself, replayed live."""
