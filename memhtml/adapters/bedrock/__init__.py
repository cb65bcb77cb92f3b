"""Adapter package: bedrock."""
