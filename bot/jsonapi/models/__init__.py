"""The pydantic models of the JSON engines' contract, one module per engine module."""
