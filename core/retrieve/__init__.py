"""Retrieval: embeddings (torch or ONNX Runtime), the LanceDB index and hybrid search inside the asking view."""
