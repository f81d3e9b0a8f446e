"""Unit tests of the Python codec (run by test/integration/python-codec.test.ts: python -m unittest)."""

import asyncio
import base64
import os
import unittest

from temporalio.api.common.v1 import Payload

from temporal_flow import AesGcmPayloadCodec, CodecKeyError, PayloadDecryptionError, parse_codec_keys
from temporal_flow.steps import rate_limited_task_queue

OLD = os.urandom(32)
NEW = os.urandom(32)


def plain(text: str) -> Payload:
    return Payload(metadata={"encoding": b"json/plain"}, data=f'"{text}"'.encode())


def run(coro):
    return asyncio.run(coro)


class AesGcmCodecTest(unittest.TestCase):
    def test_round_trip_in_the_wire_format(self):
        codec = AesGcmPayloadCodec({"k1": OLD})
        [enc] = run(codec.encode([plain("hello")]))
        self.assertEqual(enc.metadata["encoding"], b"binary/encrypted")
        self.assertEqual(enc.metadata["encryption-cipher"], b"AES256-GCM")
        self.assertEqual(enc.metadata["encryption-key-id"], b"k1")
        self.assertEqual(len(enc.data), 12 + len(plain("hello").SerializeToString()) + 16)
        self.assertNotIn(b"hello", enc.data)
        self.assertEqual(run(codec.decode([enc])), [plain("hello")])

    def test_rotation_old_key_still_decrypts_new_writes_use_the_current_key(self):
        before = AesGcmPayloadCodec({"old": OLD})
        [old_payload] = run(before.encode([plain("a")]))
        after = AesGcmPayloadCodec({"old": OLD, "new": NEW}, "new")
        self.assertEqual(run(after.decode([old_payload])), [plain("a")])
        [new_payload] = run(after.encode([plain("b")]))
        self.assertEqual(new_payload.metadata["encryption-key-id"], b"new")
        with self.assertRaises(PayloadDecryptionError) as caught:
            run(before.decode([new_payload]))
        self.assertEqual(caught.exception.reason, "unknown-key")
        self.assertIn('key "new", which this codec does not know', str(caught.exception))

    def test_an_altered_or_relabelled_payload_does_not_decrypt(self):
        codec = AesGcmPayloadCodec({"a": OLD, "b": OLD}, "a")
        [enc] = run(codec.encode([plain("x")]))
        altered = Payload()
        altered.CopyFrom(enc)
        altered.data = enc.data[:-1] + bytes([enc.data[-1] ^ 1])
        relabelled = Payload()
        relabelled.CopyFrom(enc)
        relabelled.metadata["encryption-key-id"] = b"b"  # same key bytes: only the additional data differs
        for bad in (altered, relabelled):
            with self.assertRaises(PayloadDecryptionError) as caught:
                run(codec.decode([bad]))
            self.assertEqual(caught.exception.reason, "authentication-failed")

    def test_unencrypted_payloads_pass_through_decode(self):
        codec = AesGcmPayloadCodec({"k": OLD})
        self.assertEqual(run(codec.decode([plain("as before")])), [plain("as before")])

    def test_bad_keys_are_refused_naming_the_field(self):
        with self.assertRaisesRegex(CodecKeyError, r'keys: key "k" is 5 bytes; AES-256 needs 32'):
            AesGcmPayloadCodec({"k": b"short"})
        with self.assertRaisesRegex(CodecKeyError, "current_key_id: 2 keys given in keys: name the one"):
            AesGcmPayloadCodec({"a": OLD, "b": NEW})
        with self.assertRaisesRegex(CodecKeyError, 'the current key id "c" is not among the keys'):
            AesGcmPayloadCodec({"a": OLD}, "c")


class ParseCodecKeysTest(unittest.TestCase):
    def test_reads_the_typescript_sides_variables(self):
        text = f"old:{base64.b64encode(OLD).decode()}, new:{base64.b64encode(NEW).decode()}"
        codec = parse_codec_keys(text, "new")
        self.assertEqual(codec.current_key_id, "new")

    def test_never_quotes_an_entry_that_may_hold_a_key(self):
        secret = base64.b64encode(OLD).decode()
        with self.assertRaises(CodecKeyError) as caught:
            parse_codec_keys(secret)
        self.assertNotIn(secret, str(caught.exception))
        self.assertIn("TFLOW_CODEC_KEYS: entry 1 of 1 (44 characters, not shown", str(caught.exception))
        with self.assertRaisesRegex(CodecKeyError, 'TFLOW_CODEC_KEY_ID: 2 keys given in TFLOW_CODEC_KEYS'):
            parse_codec_keys(f"a:{secret},b:{secret}")


class StepNamesTest(unittest.TestCase):
    def test_rate_limited_queue_is_the_typescript_sides(self):
        self.assertEqual(rate_limited_task_queue("py-steps", "resize"), "py-steps--rate--resize")


if __name__ == "__main__":
    unittest.main()
