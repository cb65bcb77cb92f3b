"""The pure core: values and rules with no I/O. Imports the standard library and attrs only."""
