"""The embedding projector: what ``add_embedding`` wrote (torch, tensorboardX, ridgeline), every point drawn.

The listing (``/api/embeddings``) and, per embedding, ``/api/projector/...``: its vectors' description and metadata,
PCA, UMAP and t-SNE projections computed on the server (the last two as cancellable background jobs cached by
content), exact neighbours in the original space, metadata search, alignment across steps, exports. The web half
(``web/``) draws them with WebGL. See docs/projector.md.
"""

from __future__ import annotations

from ridgeline.plugins.kit import BuiltinPlugin
from ridgeline.plugins.projector.routes import router

plugin = BuiltinPlugin(name="projector", router=router, order=100)

__all__ = ["plugin"]
