"""A tokenizer and a causal LM built in memory for the tests that run TRL (nothing downloaded)."""

from __future__ import annotations

from typing import Any

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>"]


def byte_tokenizer() -> Any:
    """A tokenizer built in memory (nothing downloaded): one token per byte, Qwen's special tokens
    and Qwen 2.5's chat template, whose tool calls TRL knows how to parse."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast
    from trl.chat_template_utils import qwen2_5_chat_template

    vocab = {s: i for i, s in enumerate(SPECIAL)}
    for ch in sorted(pre_tokenizers.ByteLevel.alphabet()):
        vocab[ch] = len(vocab)
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token=SPECIAL[0]))
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
                                                 pre_tokenizers.Split("", "isolated")])
    tok.decoder = decoders.ByteLevel()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token=SPECIAL[0],
                                        additional_special_tokens=SPECIAL[1:])
    tokenizer.chat_template = qwen2_5_chat_template
    return tokenizer


def tiny_qwen(tokenizer: Any, model_class: Any = None) -> Any:
    """A 1-layer Qwen2 with random weights (seed 0), sized for ``tokenizer`` (trainable on the CPU in a
    second); ``model_class``: a subclass of ``Qwen2ForCausalLM`` to build instead."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=16384,
                         tie_word_embeddings=True, eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id)
    return (model_class or Qwen2ForCausalLM)(config)
