"""The dice reader's models: contract, training (torch, optional) and ONNX export.

Only `contract`, `data`, `augment`, `crops`, `evaluate` and `pipeline` import without torch.
"""
