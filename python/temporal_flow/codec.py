"""The AES-256-GCM payload codec of temporal-flow (src/codec/ in the TypeScript package), for Python.

Wire format of an encrypted payload (persisted in histories and schedules; the TypeScript codec reads
and writes the same bytes):

    metadata.encoding          = "binary/encrypted"
    metadata.encryption-cipher = "AES256-GCM"
    metadata.encryption-key-id = id of the key (UTF-8)
    data = 12-byte IV | ciphertext of the original Payload (protobuf) | 16-byte GCM tag

The key id is also the GCM additional data, so a payload cannot be relabelled with another id.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from typing import Dict, List, Mapping, Optional, Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from temporalio.api.common.v1 import Payload
from temporalio.converter import PayloadCodec

ENCRYPTED_ENCODING = b"binary/encrypted"
CIPHER_METADATA_KEY = "encryption-cipher"
KEY_ID_METADATA_KEY = "encryption-key-id"
CIPHER = b"AES256-GCM"
IV_BYTES = 12
TAG_BYTES = 16
KEY_BYTES = 32

_KEY_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
_BASE64 = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")


class CodecKeyError(ValueError):
    """The keys given to the codec are wrong; ``field`` names where they came from."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class PayloadDecryptionError(Exception):
    """A payload could not be decrypted: ``reason`` is unknown-key, malformed or authentication-failed."""

    def __init__(self, reason: str, key_id: Optional[str], message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.key_id = key_id


class AesGcmPayloadCodec(PayloadCodec):
    """Encrypts every payload under the current key; decrypts with whichever known key a payload names.

    Rotation: add the new key, make it current, keep the old one while histories that use it are read.
    Payloads that are not encrypted pass through ``decode`` unchanged.
    """

    def __init__(self, keys: Mapping[str, bytes], current_key_id: Optional[str] = None, *, field: str = "keys",
                 current_field: str = "current_key_id") -> None:
        if not keys:
            raise CodecKeyError(field, "no key given; give at least one 32-byte key")
        for key_id, key in keys.items():
            if not _KEY_ID.match(key_id):
                raise CodecKeyError(field, f'key id "{key_id}" may only hold letters, digits, ".", "_" and "-" (1-64)')
            if len(key) != KEY_BYTES:
                raise CodecKeyError(
                    field, f'key "{key_id}" is {len(key)} bytes; AES-256 needs {KEY_BYTES} (e.g. `openssl rand -base64 32`)'
                )
        ids = list(keys)
        current = current_key_id if current_key_id is not None else (ids[0] if len(ids) == 1 else None)
        if current is None:
            raise CodecKeyError(current_field, f"{len(ids)} keys given in {field}: name the one that encrypts new payloads")
        if current not in keys:
            listed = ", ".join(f'"{i}"' for i in ids)
            raise CodecKeyError(current_field, f'the current key id "{current}" is not among the keys ({listed})')
        self._ciphers: Dict[str, AESGCM] = {i: AESGCM(bytes(k)) for i, k in keys.items()}
        self.current_key_id = current

    async def encode(self, payloads: Sequence[Payload]) -> List[Payload]:
        return [self.encrypt(p) for p in payloads]

    async def decode(self, payloads: Sequence[Payload]) -> List[Payload]:
        return [self.decrypt(p) for p in payloads]

    def encrypt(self, payload: Payload) -> Payload:
        key_id = self.current_key_id
        iv = os.urandom(IV_BYTES)
        # AESGCM appends the 16-byte tag to the ciphertext: IV | ciphertext | tag, as the TypeScript codec.
        sealed = self._ciphers[key_id].encrypt(iv, payload.SerializeToString(), key_id.encode("utf-8"))
        return Payload(
            metadata={
                "encoding": ENCRYPTED_ENCODING,
                CIPHER_METADATA_KEY: CIPHER,
                KEY_ID_METADATA_KEY: key_id.encode("utf-8"),
            },
            data=iv + sealed,
        )

    def decrypt(self, payload: Payload) -> Payload:
        meta = payload.metadata
        if meta.get("encoding") != ENCRYPTED_ENCODING:
            return payload
        raw_id = meta.get(KEY_ID_METADATA_KEY)
        key_id = raw_id.decode("utf-8") if raw_id is not None else None
        if key_id is None or meta.get(CIPHER_METADATA_KEY) != CIPHER:
            cipher = meta.get(CIPHER_METADATA_KEY)
            raise PayloadDecryptionError(
                "malformed",
                key_id,
                "an encrypted payload has no key id or an unknown cipher "
                f"({cipher.decode('utf-8', 'replace') if cipher else 'none'}); it was not written by this codec",
            )
        aead = self._ciphers.get(key_id)
        if aead is None:
            raise PayloadDecryptionError(
                "unknown-key",
                key_id,
                f'a payload is encrypted with key "{key_id}", which this codec does not know '
                f'(current key: "{self.current_key_id}"); add that key (TFLOW_CODEC_KEYS) to read it',
            )
        data = payload.data
        if len(data) < IV_BYTES + TAG_BYTES:
            raise PayloadDecryptionError("malformed", key_id, "an encrypted payload is too short to hold its IV and tag")
        try:
            plain = aead.decrypt(data[:IV_BYTES], data[IV_BYTES:], key_id.encode("utf-8"))
        except InvalidTag:
            raise PayloadDecryptionError(
                "authentication-failed",
                key_id,
                f'a payload encrypted with key "{key_id}" does not decrypt with the key of that id this codec holds: '
                "the key is wrong or the payload was altered",
            ) from None
        out = Payload()
        out.ParseFromString(plain)
        return out


def parse_codec_keys(text: str, current_key_id: Optional[str] = None) -> AesGcmPayloadCodec:
    """The codec of ``TFLOW_CODEC_KEYS`` (``<key id>:<base64 of 32 bytes>``, comma-separated) and
    ``TFLOW_CODEC_KEY_ID`` (the key that encrypts; may be left out with a single key), as the TypeScript
    side reads them. Entries that may hold a key are never quoted in an error."""
    keys: Dict[str, bytes] = {}
    entries = [e.strip() for e in text.split(",") if e.strip()]
    for i, entry in enumerate(entries):
        which = f"entry {i + 1} of {len(entries)}"
        colon = entry.find(":")
        if colon <= 0:
            raise CodecKeyError(
                "TFLOW_CODEC_KEYS",
                f"{which} ({len(entry)} characters, not shown: it may hold a key) is not <key id>:<base64 key>; "
                "write e.g. 2025-01:$(openssl rand -base64 32)",
            )
        key_id, b64 = entry[:colon], entry[colon + 1:]
        if not _KEY_ID.match(key_id):
            raise CodecKeyError(
                "TFLOW_CODEC_KEYS",
                f'{which}: its key id ({len(key_id)} characters before ":", not shown: it may be a key) '
                'may only hold letters, digits, ".", "_" and "-" (1-64)',
            )
        if not _BASE64.match(b64):
            raise CodecKeyError("TFLOW_CODEC_KEYS", f'the key of "{key_id}" is not base64')
        if key_id in keys:
            raise CodecKeyError("TFLOW_CODEC_KEYS", f'key id "{key_id}" is given twice')
        try:
            keys[key_id] = base64.b64decode(b64, validate=False)
        except binascii.Error:
            raise CodecKeyError("TFLOW_CODEC_KEYS", f'the key of "{key_id}" is not base64') from None
    return AesGcmPayloadCodec(keys, current_key_id, field="TFLOW_CODEC_KEYS", current_field="TFLOW_CODEC_KEY_ID")


def codec_from_env(env: Optional[Mapping[str, str]] = None) -> Optional[AesGcmPayloadCodec]:
    """The codec of ``TFLOW_CODEC_KEYS``/``TFLOW_CODEC_KEY_ID``, or None when no key is set."""
    env = os.environ if env is None else env
    keys = env.get("TFLOW_CODEC_KEYS", "")
    if not keys:
        return None
    return parse_codec_keys(keys, env.get("TFLOW_CODEC_KEY_ID") or None)
