"""The Encode / Decode panel: live coloured pieces, ids, decoding with a round-trip check,
statistics, the merge step-through."""
