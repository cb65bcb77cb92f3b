"""Adapter package: html."""
