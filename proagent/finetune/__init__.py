"""Fine-tuning the embedded GGUF chat model with LoRA, on the project's numeric stack (JAX, no torch).

The pieces, lowest first: `gguf_weights` reads and dequantises the shipped GGUF; `llama` is the same
Llama forward in jax.numpy (with optional LoRA deltas and a prefix shared by a batch); `lora` holds
the trainable low-rank deltas and their config; `chat_tokens` turns (prompt, answer) pairs into the
exact tokens llama.cpp sees at inference; `train` runs the optax loop with checkpoints and a
manifest; `gguf_adapter` writes the result as a llama.cpp LoRA adapter the embedded runtime loads.
"""
