"""Amazon Bedrock embedders (the optional ``bedrock`` extra); boto3 loads on first use only."""

from memhtml.adapters.bedrock.backoff import set_testing
from memhtml.adapters.bedrock.bedrock_embedder import DEFAULT_REGION, BedrockEmbedder
from memhtml.adapters.bedrock.payloads import (
    COHERE_ENGLISH_V3,
    COHERE_MULTILINGUAL_V3,
    SUPPORTED_MODELS,
    TITAN_V2,
)

__all__ = [
    "COHERE_ENGLISH_V3",
    "COHERE_MULTILINGUAL_V3",
    "DEFAULT_REGION",
    "SUPPORTED_MODELS",
    "TITAN_V2",
    "BedrockEmbedder",
    "set_testing",
]
