"""Bot commands (``!attack``, ``!combat`` ...) registered with :func:`command`."""
