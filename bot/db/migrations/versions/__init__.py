"""One module per schema revision, in order (``v0001_...``, ``v0002_...``)."""
