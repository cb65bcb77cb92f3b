"""The discrimination gate (docs/evaluation.md §A): does retrieval rank each true memory above its
planted look-alikes?

Pure parts (``prng``, ``topics``, ``texts``, ``controls``, ``probes``, ``generator``,
``salience``, ``scoring``) build the fixture and score ranks without I/O; ``rendering`` turns the
fixture into files through the html adapter, ``runner`` builds a real store from them and
probes it, ``report`` shapes the ``eval.discrimination`` data.
"""
