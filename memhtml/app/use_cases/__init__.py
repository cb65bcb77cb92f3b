"""The store's use cases: each takes its collaborators explicitly and returns a frozen result.

Import the use case modules themselves (``memhtml.app.use_cases.write`` …); this package
module stays empty so importing one use case never loads the others.
"""
