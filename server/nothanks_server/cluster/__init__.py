"""A host among others: the parts that share state through Redis (issue 19, docs/scaling.md). ``nothanks server``
alone never imports them: ``redis`` is imported only when a Redis URL is given (``Directory.connect``).
"""
