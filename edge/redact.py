"""Camera sources as they may be shown: the password and query tokens replaced by `***`.

An RTSP/HTTP camera is often configured with its credentials in the URL
(`rtsp://user:pass@10.0.0.5/stream`, `http://cam/video?token=...`). Everything that leaves
the process (log lines, camera_error events, CLI messages, the config's repr) may end up in
a journal, a ticket or a screenshot, so it names the source by `redact_uri`; the real URI
is used only to open the camera. Text made elsewhere that may quote the URI (an OpenCV or
FFmpeg exception, a YAML parser's snippet) goes through `redact_text`. The user name and
the host stay: they say which camera, and are no secret by themselves.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

MASK = "***"

# scheme://user:password@ -- the password runs to the last "@" before the path, so one with
# an unencoded "@" (or "?") is masked whole; a query holding an "@" with no path before it
# loses its host too, which shows less but leaks nothing.
_USERINFO = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/@:]*):(?P<secret>[^\s/]*)@")
# key=value where the key names a secret, in a query string or a GStreamer pipeline
# (`rtspsrc location=... user-pw=...`): password, token, api_key, X-Amz-Signature, ...
_KEYED = re.compile(
    r"(?P<head>(?:^|[?&;\s])[\w.-]*(?:password|passwd|pwd|pass|pw|token|key|secret|"
    r"signature|sig|auth|credentials?)=)(?P<secret>[^\s&;#'\"]*)", re.IGNORECASE)
# A secret of the configured URI is masked wherever it still shows (a backend that quotes it
# decoded, or out of its URL); a shorter one would mask every such run of characters in the
# text, and is masked in its URL only.
_BARE_MIN = 4


def _mask(text: str) -> str:
    text = _USERINFO.sub(lambda m: f"{m['head']}:{MASK}@", text)
    return _KEYED.sub(lambda m: m["head"] + (MASK if m["secret"] else ""), text)


def _secrets(uri: str) -> set[str]:
    found = {m["secret"] for m in _USERINFO.finditer(uri)}
    found |= {m["secret"] for m in _KEYED.finditer(uri)}
    found |= {unquote(s) for s in found}
    return {s for s in found if len(s) >= _BARE_MIN and s != MASK}


def redact_text(text: str, *uris: int | str | None) -> str:
    """`text` with every URL password and secret query value masked, and any secret of the
    given source URIs masked wherever else it occurs."""
    text = _mask(text)
    for uri in uris:
        if isinstance(uri, str):
            for secret in sorted(_secrets(uri), key=len, reverse=True):
                text = text.replace(secret, MASK)
    return text


def redact_uri(uri: int | str) -> int | str:
    """The source as it may be shown (a camera index is returned as it is)."""
    return redact_text(uri, uri) if isinstance(uri, str) else uri
