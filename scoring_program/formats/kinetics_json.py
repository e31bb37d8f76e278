"""The schema of the Kinetics-TPS part files (gt_part_result.json, pred_part_result.json) on the JSON byte pass
(formats.jsonpass): straight from bytes to arrays, with no Python object per number, string or container.

The engine gives a block's tokens without white space, their depth, the grammar and the keys; this module names
the containers and reads the arrays:

1. Nodes. The document's shape (formats.kinetics_tps's docstring) gives each container a node (a video, a frame, the
   humans list, a human, its box, its parts, a part, the part's boxes, its verbs, a proposal box), found from its
   depth, its bracket and the key it hangs under. The depth alone names the node except at two levels (a human's
   box or its parts; a part's boxes or its verbs): there a running sum of two bits (an opening bracket adds its
   node's bit, a closing one subtracts the bit of the node it must close, which must be the one found before it)
   completes it. So brackets match, and every token knows the node of its container.
2. The schema as a table of values allowed per container node and key (_tables), and one child per container
   where the schema has one (a frame's humans, a human's box and parts, a part's box and verbs).
3. Arrays: the counts of every level from the offsets of the opening and closing brackets (a box [a,b,c,d] holds
   close - open numbers), numbers by formats.jsonnum, names and states by the engine's StringTable.
4. Frame shapes: a frame whose tokens repeat those of a frame read before (the same keys, counts and places of
   scalars: _signature) is read from the offsets remembered for that shape, without the grammar and schema work.

The pass only accepts what it fully understands: a valid JSON document of exactly this shape, every box and state
where the metric needs it, keys not repeated, no string or scalar over the caps of formats.limits. Anything else
(invalid JSON, a missing or repeated key, a list where an object belongs, a box that is not 4 plain numbers, an
empty file, another encoding) is Unexpected. In a prediction file, a container under a key the scorer ignores
({"humans": [], "x": [{}]}) is checked as JSON and then left out (_outside_ignored), as json.loads builds it and the
stdlib path never reads it (a ground-truth file with one goes to json.loads whole). For a ground-truth file,
read_part_file then returns None and the caller parses the file with json.loads; for a prediction file, the block
where it happens is read by json.loads alone and by the schema's checks (BlockReader, _Pass._by_json), so the
messages stay those of the stdlib path and json.loads never holds more than a block. A file is read in blocks that
end after a frame: every human, part and box lies in one block, and the temporaries stay a few MB (a frame larger
than MAX_BLOCK, or a repeated video or frame key, sends the whole file to json.loads).
"""
from __future__ import annotations

import json
from typing import Callable, Dict, List, NamedTuple, Optional, Tuple

import numpy as np

from ..errors import SubmissionError
from .jsoncaps import check_caps, json_error, line_of
from .jsonnum import json_numbers, literal_or_number
from .jsonpass import (ARR_CLOSE, ARR_OPEN, COMMA, KEY, NCODES, OBJ_CLOSE, OBJ_OPEN, START, STR, CompactBlock, Grow,
                       Strings, StringTable, Tokens, Unexpected, block_tokens, check_escapes, check_grammar,
                       check_scalars, depth, key_classes, texts, unescaped_quotes)
from .mapped import release_pages

BLOCK = 1 << 19                 # bytes per block of vectorized work, white space outside strings left out (grown
                                # when one frame is larger)
MAX_BLOCK = 1 << 20             # a frame larger than this (in the file, white space included: from the end of the frame
                                # before to its own) is left to json.loads of the whole file: what a block costs
                                # (about 20 bytes per byte here, up to 90 in json.loads) stays bounded; a frame of the
                                # schema takes kilobytes
MAX_SPREAD = 16                 # a block spans at most BLOCK * MAX_SPREAD bytes of the file (white space)
MAX_SHAPES = 4096               # frame shapes remembered per file (_learn)

# schema nodes (4 bits) and the keys the schema names
(NONE, ROOT, VIDEO, FRAME, HUMANS, HUMAN, HBOX, PARTS, PART, PBOX, VERBS, PROP) = range(12)
INVALID = 15
S_VALUE, SCALAR = 12, 13        # value codes besides the nodes: a string, a scalar
K_NONE, K_OTHER, K_HUMANS, K_BOX, K_PARTS, K_VERB = range(6)
_KEY_WORDS = ((b"humans", K_HUMANS), (b"box", K_BOX), (b"parts", K_PARTS), (b"verb", K_VERB))
_IS_OBJ = np.zeros(16, dtype=bool)
_IS_OBJ[[ROOT, VIDEO, FRAME, HUMAN, PARTS, PART]] = True
_ANY_KEY = [K_OTHER, K_HUMANS, K_BOX, K_PARTS, K_VERB]
MAX_LEVEL = 9


def _tables(pred: bool) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """OPEN_NODE[level, is_array, key class], CLOSE_NODE[level, is_array], ALLOWED[container, key class, value]."""
    open_node = np.full((MAX_LEVEL + 2, 2, 6), INVALID, dtype=np.uint8)
    close_node = np.full((MAX_LEVEL + 2, 2), INVALID, dtype=np.uint8)
    allowed = np.zeros((16, 6, 16), dtype=bool)
    spec = [(1, 0, [K_NONE], ROOT), (2, 0, _ANY_KEY, VIDEO), (3, 0, _ANY_KEY, FRAME), (4, 1, [K_HUMANS], HUMANS),
            (5, 0, [K_NONE], HUMAN), (6, 1, [K_BOX], HBOX), (6, 0, [K_PARTS], PARTS), (7, 0, _ANY_KEY, PART),
            (8, 1, [K_BOX], PBOX)]
    if pred:
        spec += [(8, 1, [K_VERB], VERBS), (9, 1, [K_NONE], PROP)]
    for level, is_array, keys, node in spec:
        open_node[level, is_array, keys] = node
        if close_node[level, is_array] == INVALID:      # level 8: the boxes (verbs are told apart by content)
            close_node[level, is_array] = node
    ignored = [S_VALUE, SCALAR]           # values of the keys the scorer ignores: no containers
    allowed[NONE, K_NONE, ROOT] = True
    allowed[ROOT, _ANY_KEY, VIDEO] = True
    allowed[VIDEO, _ANY_KEY, FRAME] = True
    allowed[FRAME, K_HUMANS, HUMANS] = True
    for keys, node in (([K_OTHER, K_BOX, K_PARTS, K_VERB], FRAME), ([K_OTHER, K_HUMANS, K_VERB], HUMAN),
                       ([K_OTHER, K_HUMANS, K_PARTS], PART)):
        for k in keys:
            allowed[node, k, ignored] = True
    allowed[HUMANS, K_NONE, HUMAN] = True
    allowed[HUMAN, K_BOX, HBOX] = True
    allowed[HUMAN, K_PARTS, PARTS] = True
    allowed[HBOX, K_NONE, SCALAR] = True
    allowed[PARTS, _ANY_KEY, PART] = True
    allowed[PART, K_BOX, PBOX] = True
    if pred:
        allowed[PART, K_VERB, VERBS] = True
        allowed[PBOX, K_NONE, PROP] = True
        allowed[VERBS, K_NONE, S_VALUE] = True
        allowed[PROP, K_NONE, SCALAR] = True
    else:
        allowed[PART, K_VERB, S_VALUE] = True
        allowed[PBOX, K_NONE, SCALAR] = True
    return open_node.ravel(), close_node.ravel(), allowed.ravel()


_TABLES = {False: _tables(False), True: _tables(True)}
# node of a container from its depth and the two bits (1: parts, not a human's box; 2: verbs, not a part's boxes)
_NODE_AT = np.full((16, 4), INVALID, dtype=np.uint8)
for _bits in range(4):
    _NODE_AT[:10, _bits] = [NONE, ROOT, VIDEO, FRAME, HUMANS, HUMAN, PARTS if _bits & 1 else HBOX, PART,
                            VERBS if _bits & 2 else PBOX, PROP]
_NODE_AT = _NODE_AT.ravel()
_BIT = np.zeros(16, dtype=np.uint8)
_BIT[PARTS], _BIT[VERBS] = 1, 2
_MINUS_BIT = (np.uint8(0) - _BIT).astype(np.uint8)


class PartFile(NamedTuple):
    """A part file as arrays, everything in file order.

    Videos: key; frames: key, video, humans; humans: box, parts; parts: name, box (ground truth) or the counts of
    proposal boxes and verbs (prediction); proposals: box; verbs: state."""
    video_key: list             # str
    frame_key: list             # str
    frame_video: np.ndarray     # int64 index into video_key
    frame_humans: np.ndarray    # int64 humans per frame
    human_box: np.ndarray       # (H, 4) float64
    human_parts: np.ndarray     # int64 parts per human
    part_name: Strings
    part_box: np.ndarray        # ground truth: (P, 4) float64; prediction: None
    part_verb: Strings          # ground truth: one per part; prediction: one per verb
    part_nbox: np.ndarray       # prediction: proposal boxes per part
    part_nverb: np.ndarray      # prediction: verbs per part
    prop_box: np.ndarray        # prediction: (Q, 4) float64
    cut: object = None          # prediction: (number of boxes of more than 4 numbers, where the first is, it) or None


class BlockReader(NamedTuple):
    """What the pass needs to read a block it does not handle itself with json.loads (_Pass._by_json): the file's
    label for the messages, the schema's reader of a parsed block (PartFile, or SubmissionError naming the first
    fault) and the schema's count rules (true when a block's counts break one)."""
    label: str
    read: Callable[[object], "PartFile"]        # parsed document -> PartFile (with .cut), or SubmissionError
    count_fault: Callable[[np.ndarray, np.ndarray, np.ndarray], bool]  # (frame_humans, part_nverb, part_nbox)


def read_part_file(data: bytes, pred: bool, reader: Optional[BlockReader] = None) -> Optional[PartFile]:
    """PartFile of the bytes of a part file, or None when the document is anything but what the pass handles.

    With a BlockReader (prediction files), a block the pass does not read itself (a fault, a box of more than 4
    numbers, a container deeper than the schema) is read with json.loads, alone (_Pass._by_json): the first fault
    of the file is raised as SubmissionError with the message of the stdlib path, and a block without fault is read
    all the same. None then means that the file needs json.loads whole (a repeated video or frame key, a frame
    larger than MAX_BLOCK, another encoding)."""
    if len(data) < 2 or any(b == 0 or b >= 0x80 for b in data[:4]):
        return None             # empty, or what json.detect_encoding may read as UTF-16/32 or with a BOM
    try:
        return _Pass(data, pred, reader).run()
    except Unexpected:
        return None


class _Carried(NamedTuple):
    """What a block carries to the next: its last token (the next block's token 0, its first byte)."""
    code: int                   # its token code
    depth: int                  # the depth after it
    bits: int                   # the node bits after it (_NODE_AT)


_AFTER_FRAME = _Carried(OBJ_CLOSE, 2, 0)        # a frame's closing brace: where every block but the first starts


class _Pass(object):
    """One structural pass over a part file, block by block (see the module's docstring)."""

    def __init__(self, data: bytes, pred: bool, reader: Optional[BlockReader] = None) -> None:
        self.data = data
        self.pred = pred
        self.reader = reader            # a BlockReader: blocks the pass does not read go to _by_json
        self.fault = None               # the first fault in a block read by _by_json (SubmissionError)
        self.cut = None                 # boxes of more than 4 numbers: [count, where, box] of the first
        self.whole_checked = False      # the caps and the encoding of the whole file (before any json.loads)
        self.by_json_run = 0            # blocks in a row read by _by_json: after 2, the pass tries 1 block in 8
        self.arr = np.frombuffer(data, dtype=np.uint8)
        self.open_node, self.close_node, self.allowed = _TABLES[pred]
        # carried from block to block: the last token (its code, depth, node bits), just before the next block
        self.prev = _AFTER_FRAME._replace(code=START, depth=0)
        self.n_videos = 0
        self.video_key, self.frame_key = [], []
        self.frame_video, self.frame_humans = Grow(np.int64), Grow(np.int64)
        self.human_box, self.human_parts, self.part_box = Grow(np.float64, 4), Grow(np.int64), Grow(np.float64, 4)
        self.part_nbox, self.part_nverb, self.prop_box = Grow(np.int64), Grow(np.int64), Grow(np.float64, 4)
        self.names, self.verbs = StringTable(), StringTable()
        self.done = False
        self.shapes = _Shapes()         # the frame shapes learnt (_learn, _by_shape)
        self.blocks_by_shape = 0        # blocks read by _by_shape (tests)
        self.fraction = 1.0             # of the file read with the current block (run)
        self.spread = 1.0               # file bytes per byte of the last compact block: blocks of BLOCK compact bytes

    def run(self) -> PartFile:
        pos, size, n, fresh = 0, BLOCK, self.arr.size, True
        while not self.done:
            end = min(n, pos + size)
            if fresh:       # denser than the block before: a block stays near BLOCK bytes once compact (one byte
                while end - pos > 2 * BLOCK and 64 * np.count_nonzero(self.arr[pos:end:64] > 32) > 2 * BLOCK:
                    end = pos + (end - pos) // 2                                    # in 64 tells)
                size = end - pos
            self.fraction = end / float(n)      # of the file read once the block is (for Grow's estimates)
            mark = self._mark()
            try:
                if self.by_json_run >= 2 and self.by_json_run % 8:
                    raise Unexpected("the blocks before went to json.loads")    # (a box of 5 numbers per frame)
                nxt = self._block(pos, end, end == n)
                self.by_json_run = 0
            except Unexpected:
                if self.reader is None:
                    raise
                self._rollback(mark)
                nxt = self._by_json(pos, end, end == n)
                self.by_json_run += nxt is not None
            if nxt is None:             # no frame ends inside the block: take a larger one
                if end - pos >= MAX_BLOCK:
                    raise Unexpected("a frame larger than MAX_BLOCK")
                size, fresh = 2 * size, False
                continue
            pos, size, fresh = nxt, int(BLOCK * self.spread), True
            release_pages(self.data)    # a mapped file: the pages read so far are let go (formats.mapped)
        if self.fault is not None:
            raise self.fault
        return PartFile(self.video_key, self.frame_key, self.frame_video.values(), self.frame_humans.values(),
                        self.human_box.values(), self.human_parts.values(), self.names.result(),
                        None if self.pred else self.part_box.values(), self.verbs.result(),
                        self.part_nbox.values(), self.part_nverb.values(),
                        self.prop_box.values() if self.pred else None, None if self.cut is None else tuple(self.cut))

    @property
    def ascii(self) -> bool:
        """No byte of the file over 127 (its UTF-8 needs no check; its bytes are its characters)."""
        if not self.arr.size:
            return True
        top = 0
        for a in range(0, self.arr.size, MAX_BLOCK):
            top = max(top, int(self.arr[a:a + MAX_BLOCK].max()))
            release_pages(self.data)
        return top < 0x80

    def _mark(self) -> tuple:
        """The lengths of everything a block appends (_rollback undoes a block that failed half way)."""
        grows = (self.frame_video, self.frame_humans, self.human_box, self.human_parts, self.part_box,
                 self.part_nbox, self.part_nverb, self.prop_box, self.names.codes, self.verbs.codes)
        return len(self.video_key), len(self.frame_key), self.n_videos, [(g, g.n) for g in grows]

    def _rollback(self, mark: tuple) -> None:
        videos, frames, self.n_videos, grows = mark
        del self.video_key[videos:]
        del self.frame_key[frames:]
        for g, n in grows:
            g.n = n

    # ------------------------------------------------------------------------------------------- json.loads, one block

    def _by_json(self, a: int, b: int, last_block: bool) -> Optional[int]:
        """Read the block [a, b), cut after its last frame, with json.loads: the stdlib path for one block, so that
        what it costs (json.loads takes 10 to 90 bytes per byte) is bounded by the block. The block is parsed as a
        document of its own: after a frame the pass stands inside a video object, which a header reopens (the
        video's key and a placeholder frame); closing braces end it. A JSONDecodeError is raised at once with its
        place in the file (blocks before this one are valid JSON, so it is the file's first); a fault of the schema
        (BlockReader.read) is kept and raised at the end, when the rest of the file has proved valid JSON: the
        order of json.loads on the whole file, then the checks. A block without fault is appended. None: no frame
        ends in [a, b)."""
        if not self.whole_checked:          # what json.loads of the whole file would meet first
            check_caps(self.data, self.reader.label)
            if not self.ascii:
                try:
                    str(self.data, "utf-8", "surrogatepass")
                except UnicodeDecodeError as e:
                    raise json_error(self.reader.label, e)
            self.whole_checked = True
        cut, n_video_keys, n_frame_keys = self._frame_end(a, b, last_block)
        if cut is None:
            return None
        head, tail = "", ("" if last_block else "}}")
        if a > 0:
            video = self.video_key[-1] if self.video_key else ""
            head = "{%s:{%s:{\"humans\":[]}" % (json.dumps(video), json.dumps(self._placeholder(a, cut)))
        body = self.data[a:cut].decode("utf-8", "surrogatepass")
        try:
            doc = json.loads(head + body + tail)
        except json.JSONDecodeError as e:
            at = e.pos - len(head)
            if at < 0 or at >= len(body) and not last_block:
                raise Unexpected("a fault outside the block")
            line, column = self._line_column(a, body, at)
            raise json_error(self.reader.label, e, line=line, column=column)
        except RecursionError as e:
            raise json_error(self.reader.label, e)
        skip = 1 if a > 0 else 0            # the video reopened by the header, and its placeholder frame
        if isinstance(doc, dict):
            frames = sum(len(v) for v in doc.values() if isinstance(v, dict))
            if len(doc) != n_video_keys + skip or frames != n_frame_keys + skip:
                raise Unexpected("a key repeated in the block")     # json.loads keeps one: the whole file decides
        try:
            part = self.reader.read(doc)
        except SubmissionError as fault:
            self.fault = self.fault or fault
            if isinstance(doc, dict):       # the videos it opens (the header of the next block names the last)
                self.video_key += list(doc)[skip:]
                self.n_videos += len(doc) - skip
        else:
            self._append_part(part, skip)
        if last_block:
            self.done = True
            return self.arr.size
        self.prev = _AFTER_FRAME
        return cut

    def _frame_end(self, a: int, b: int, last_block: bool) -> Tuple[Optional[int], Optional[int], Optional[int]]:
        """(1 + the offset of the last frame's closing brace in [a, b) (b for the last block), the video keys and
        the frame keys before it), from the brackets and colons outside strings; (None, None, None) when no frame
        ends there."""
        c = self.arr[a:b]
        quotes = unescaped_quotes(self.data, c, a) - a
        marks = np.flatnonzero((c == 123) | (c == 125) | (c == 91) | (c == 93) | (c == 58))
        marks = marks[(np.searchsorted(quotes, marks) & 1) == 0]        # outside strings
        byte = c[marks]
        step = np.where((byte == 123) | (byte == 91), 1, np.where(byte == 58, 0, -1)).astype(np.int64)
        depth = np.cumsum(step) + self.prev.depth       # after each mark
        ends = np.flatnonzero((byte == 125) & (depth == 2))
        if last_block:
            k, cut = marks.size, b
        else:
            if ends.size == 0:
                return None, None, None
            k = int(ends[-1])
            cut = a + int(marks[k]) + 1
        _frames_within(a, a + marks[ends], b if last_block else None)
        colon = byte[:k] == 58
        return cut, int(np.count_nonzero(colon & (depth[:k] == 1))), int(np.count_nonzero(colon & (depth[:k] == 2)))

    def _placeholder(self, a: int, cut: int) -> str:
        """A frame key that no frame of the block has (the header's placeholder frame)."""
        key = "\x00"
        while self.data.find(json.dumps(key).encode(), a, cut) >= 0:
            key += "\x00"
        return key

    def _line_column(self, a: int, body: str, at: int) -> Tuple[int, int]:
        """The line and column (in characters, as json.loads counts them) of character `at` of body, the text of
        the bytes from offset a."""
        line = line_of(self.data, a) + body.count("\n", 0, at)
        nl = body.rfind("\n", 0, at)
        if nl >= 0:
            return line, at - nl
        start = self.data.rfind(b"\n", 0, a) + 1
        chars = a - start
        if not self.ascii:              # UTF-8 continuation bytes are not characters
            chars -= int(np.count_nonzero((self.arr[start:a] & 0xC0) == 0x80))
        return line, chars + at + 1

    def _append_part(self, part: PartFile, skip: int) -> None:
        """Append a PartFile read from a block by _by_json; skip 1: its first video is the one the block continues
        (already counted) and its first frame the header's placeholder."""
        self.video_key += part.video_key[skip:]
        self.frame_key += part.frame_key[skip:]
        self.frame_video.append(part.frame_video[skip:] + (self.n_videos - skip), self.fraction)
        self.n_videos += len(part.video_key) - skip
        self.frame_humans.append(part.frame_humans[skip:], self.fraction)
        self.human_parts.append(part.human_parts, self.fraction)
        self.human_box.append(part.human_box, self.fraction)
        self.prop_box.append(part.prop_box, self.fraction)
        self.part_nbox.append(part.part_nbox, self.fraction)
        self.part_nverb.append(part.part_nverb, self.fraction)
        self.names.add_strings(part.part_name, self.fraction)
        self.verbs.add_strings(part.part_verb, self.fraction)
        if part.cut is not None:
            if self.cut is None:
                self.cut = list(part.cut)
            else:
                self.cut[0] += part.cut[0]

    # ------------------------------------------------------------------------------------------- tokens

    # ------------------------------------------------------------------------------------------- one block

    def _block(self, a: int, b: int, last_block: bool) -> Optional[int]:
        """Read the frames that end in [a, b) (all of it for the last block): the file offset after the last of
        them, or None when no frame ends there; Unexpected for anything the pass does not read."""
        pcode, pdepth, pbits = self.prev
        block, tokens = block_tokens(self.data, self.arr, a, b)
        pos, code, end, gap = tokens
        level = depth(code, pdepth)
        if level.max() > MAX_LEVEL:         # deeper than the schema: before the block grows
            raise Unexpected("depth")
        if not last_block:
            # end the block after the last frame that closes in it: "}" back at depth 2
            k = _last_frame_end(level, code)
            if k is None:
                return None
            pos, code, end, level, gap = pos[:k], code[:k], end[:k], level[:k], gap[:k - 1]
        n = code.size
        if n < 2:
            raise Unexpected("empty")
        if last_block and (level[-1] != 0 or (level[1:-1] == 0).any() or block.arr.size > int(end[-1]) + 1):
            raise Unexpected("not one object")
        units = np.flatnonzero(code == OBJ_CLOSE)
        units = units[level[units] == 2]    # frame ends: units of tokens between them
        ends = pos[units[units > 0]]       # (not the carried token)
        _frames_within(a, block.start + (ends if block.origin is None else block.origin[ends]),
                       self.arr.size if last_block else None)
        self.spread = min(max((b - a) / float(max(block.arr.size, 1)), 1.0), MAX_SPREAD)
        sc = gap > 0                        # a scalar after token i
        scal = np.flatnonzero(sc)
        s_start = end[scal] + 1
        check_scalars(block, s_start, gap[scal])
        tokens = Tokens(pos, code, end, gap)
        kidx, kcls = key_classes(block, tokens, _KEY_WORDS, K_OTHER)      # key classes, carried to the colon
        shaped = not last_block and not block.escapes and block.ascii
        if shaped:
            sig = _signature(code, sc, kidx, kcls)
            if pcode == OBJ_CLOSE and self.shapes and self._by_shape(block, sig, units, pos, end, gap):
                self.blocks_by_shape += 1
                self.prev = _AFTER_FRAME
                return block.file_offset(int(end[-1])) + 1
        if level[1:].min() < (0 if last_block else 1):
            raise Unexpected("depth")
        check_grammar(code, sc)
        if block.escapes:
            check_escapes(block, tokens)
        keep = _outside_ignored(code, level, kidx, kcls) if self.pred else None
        if keep is not None:        # containers under ignored keys, checked as JSON above: left out from here on
            kept = np.flatnonzero(keep)
            pos, code, end, level, gap = pos[kept], code[kept], end[kept], level[kept], gap[kept[:-1]]
            in_keys = keep[kidx]
            kidx, kcls = (np.cumsum(keep) - 1)[kidx[in_keys]], kcls[in_keys]
            n = code.size
            sc = gap > 0
            scal = np.flatnonzero(sc)
            s_start = end[scal] + 1
            shaped = False          # a frame shape is learnt from the tokens of the file as they are
        delta = np.diff(level, prepend=np.int16(pdepth))
        key_after = np.zeros(n, dtype=np.uint8)     # at a colon: the class of its key
        key_after[kidx + 1] = kcls
        # containers: the node of each opening bracket from its level, bracket and key
        opens = np.flatnonzero(delta[1:] > 0) + 1
        closes = np.flatnonzero(delta[1:] < 0) + 1
        o_level = level[opens].astype(np.intp)
        o_node = self.open_node[(o_level * 2 + (code[opens] == ARR_OPEN)) * 6 + key_after[opens - 1]]
        if (o_node == INVALID).any():
            raise Unexpected("a container the schema does not have")
        c_level = level[closes].astype(np.intp) + 1
        c_node = self.close_node[c_level * 2 + (code[closes] == ARR_CLOSE)]
        if self.pred:       # at level 8, an array of strings is the verbs, one of arrays the boxes
            c_node[(c_level == 8) & (code[closes - 1] == STR)] = VERBS
        empty = np.flatnonzero(delta[closes - 1] > 0)
        if empty.size:
            node_of = np.zeros(n, dtype=np.uint8)
            node_of[opens] = o_node
            c_node[empty] = node_of[closes[empty] - 1]
        # the two levels with two possible nodes, as bits of a running sum: 1 inside parts (not a human's box),
        # 2 inside verbs (not a part's boxes)
        weight = np.zeros(n, dtype=np.uint8)
        weight[0] = pbits
        weight[opens] = _BIT.take(o_node)
        weight[closes] = _MINUS_BIT.take(c_node)
        bits = np.cumsum(weight, dtype=np.uint8)
        where = level.astype(np.uint8) * np.uint8(4)
        where += bits
        gap_node = _NODE_AT.take(where)
        if not (_NODE_AT[(c_level * 4 + bits[closes - 1])] == c_node).all():
            raise Unexpected("brackets do not match")
        # a comma in an object is followed by a key, in an array by a value
        commas = np.flatnonzero(code[:-1] == COMMA)
        if commas.size and not (_IS_OBJ.take(gap_node[commas]) == (code[commas + 1] == KEY)).all():
            raise Unexpected("grammar")
        # values allowed per container and key
        allowed = self.allowed
        if not allowed[(gap_node[opens - 1] * 6 + key_after[opens - 1]).astype(np.intp) * 16 + o_node].all():
            raise Unexpected("schema")
        strs = np.flatnonzero(code[1:] == STR) + 1
        if not allowed[(gap_node[strs - 1] * 6 + key_after[strs - 1]).astype(np.intp) * 16 + S_VALUE].all():
            raise Unexpected("schema")
        s_node = gap_node[scal]
        if not allowed[(s_node * 6 + key_after[scal]).astype(np.intp) * 16 + SCALAR].all():
            raise Unexpected("schema")
        learn = shaped and len(self.shapes) < MAX_SHAPES
        roles = self._arrays(block, code, pos, end, opens, o_node, closes, c_node, strs, gap_node, key_after,
                             scal, s_node, s_start, gap[scal], sc, learn)
        if learn:
            self._learn(sig, units, roles)
        self.prev = _Carried(int(code[-1]), int(level[-1]), int(bits[-1]))
        if last_block:
            self.done = True
            return self.arr.size
        return block.file_offset(int(end[-1])) + 1

    # ------------------------------------------------------------------------------------------- arrays

    def _arrays(self, block: CompactBlock, code: np.ndarray, pos: np.ndarray, end: np.ndarray, opens: np.ndarray,
                o_node: np.ndarray, closes: np.ndarray, c_node: np.ndarray, strs: np.ndarray, gap_node: np.ndarray,
                key_after: np.ndarray, scal: np.ndarray, s_node: np.ndarray, s_start: np.ndarray, s_len: np.ndarray,
                sc: np.ndarray, learn: bool = False) -> Optional[dict]:
        """Appends the block's arrays; with learn, returns the tokens of each role and the counts (_learn)."""

        def opens_of(node):
            return opens[o_node == node]

        def closes_of(node):
            return closes[c_node == node]

        def parent(child, par):
            """Index (into par) of the container of each child token (par: sorted token indices)."""
            return np.searchsorted(par, child, side="right") - 1

        def exactly_one(child, par):
            """child[i] lies between par[i] and par[i + 1]: one child per container."""
            if child.size != par.size or (child.size and not ((child > par).all() and (child[:-1] < par[1:]).all())):
                raise Unexpected("a key missing or repeated")

        def count(child, par):
            """Children per container, for children that lie between their container and the next one."""
            return np.diff(np.append(np.searchsorted(child, par), child.size)).astype(np.int64)

        video = opens_of(VIDEO)
        frame = opens_of(FRAME)
        human = opens_of(HUMAN)
        hbox_o, hbox_c = opens_of(HBOX), closes_of(HBOX)
        part = opens_of(PART)
        pbox_o, pbox_c = opens_of(PBOX), closes_of(PBOX)
        exactly_one(opens_of(HUMANS), frame)
        exactly_one(hbox_o, human)
        exactly_one(opens_of(PARTS), human)
        exactly_one(pbox_o, part)
        if hbox_c.size != hbox_o.size or pbox_c.size != pbox_o.size:
            raise Unexpected("a box that does not close in its block")
        in_video = parent(frame, video) + self.n_videos
        frame_humans = count(human, frame)
        nparts = count(part, human)
        # numbers
        num_node = (HBOX, PROP) if self.pred else (HBOX, PBOX)
        in_hbox = s_node == num_node[0]
        is_num = in_hbox | (s_node == num_node[1])
        if learn:
            roles = {"hbox": scal[in_hbox], "num": scal[is_num & ~in_hbox], "ign": scal[~is_num],
                     "frame": frame - 2, "videos": video - 2, "names": part - 2,
                     "frame_humans": frame_humans, "human_parts": nparts}
        if not is_num.all():
            other = np.flatnonzero(~is_num)
            if not literal_or_number(block.arr, block.u64, s_start[other], s_len[other]).all():
                raise Unexpected("scalar")
            in_hbox = in_hbox[is_num]
            s_start, s_len = s_start[is_num], s_len[is_num]
        values, ok = json_numbers(block.arr, block.u64, s_start, s_len)
        if not ok.all():
            raise Unexpected("a box holds something else than finite numbers")
        human_box = _boxes(values[in_hbox], hbox_o, hbox_c, sc)
        other_vals = values[~in_hbox]
        part_nbox = part_nverb = None
        if self.pred:
            prop_o, prop_c = opens_of(PROP), closes_of(PROP)
            verbs_o, verbs_c = opens_of(VERBS), closes_of(VERBS)
            exactly_one(verbs_o, part)
            other_box = _boxes(other_vals, prop_o, prop_c, sc)
            part_nbox, part_nverb = count(prop_o, part), (verbs_c - verbs_o) // 2
            verb_tok = strs[gap_node[strs - 1] == VERBS]
            if learn:
                roles["part_nbox"], roles["part_nverb"] = part_nbox, part_nverb
        else:
            other_box = _boxes(other_vals, pbox_o, pbox_c, sc)
            verb_tok = strs[(gap_node[strs - 1] == PART) & (key_after[strs - 1] == K_VERB)]
            exactly_one(verb_tok, part)
        # keys of videos and frames, part names (keys of parts), states
        self._append(block, pos, end, video - 2, frame - 2, in_video, frame_humans, nparts, human_box, other_box,
                     part_nbox, part_nverb, part - 2, verb_tok)
        if learn:
            roles["verbs"] = verb_tok
            return roles
        return None

    # ------------------------------------------------------------------------------------------- frame shapes

    def _learn(self, sig: np.ndarray, units: np.ndarray, roles: dict) -> None:
        """Remember the shape of every frame of a block that the full pass accepted (a unit of tokens after a
        frame's closing brace up to the next one's), with the offsets of what it holds."""
        if units.size < 2:
            return
        start, stop = units[:-1] + 1, units[1:] + 1
        lens = stop - start
        fh = roles["frame_humans"]
        h_at = np.concatenate(([0], np.cumsum(fh)))
        p_at = np.concatenate(([0], np.cumsum(roles["human_parts"])))
        frame_tok = roles["frame"]
        for L in np.unique(lens).tolist():
            rows = np.flatnonzero(lens == L)
            m = sig[start[rows, None] + np.arange(L)]
            _, first = np.unique(m, axis=0, return_index=True)
            for r in rows[np.sort(first)].tolist():
                s, e = int(start[r]), int(stop[r])
                key = sig[s:e].tobytes()
                if key in self.shapes or len(self.shapes) >= MAX_SHAPES:
                    continue
                f = int(np.searchsorted(frame_tok, s))
                if f >= frame_tok.size or not s <= frame_tok[f] < e:
                    continue
                h0, h1 = int(h_at[f]), int(h_at[f + 1])
                p0, p1 = int(p_at[h0]), int(p_at[h1])

                def within(t):
                    t = t[(t >= s) & (t < e)]
                    return (t - s).astype(np.intp)
                videos = within(roles["videos"])
                pred = self.pred
                self.shapes.add(key, _Shape(
                    within(roles["hbox"]), within(roles["num"]), within(roles["ign"]), within(frame_tok), videos,
                    within(roles["names"]), within(roles["verbs"]), np.array([videos.size]), fh[f:f + 1].copy(),
                    roles["human_parts"][h0:h1].copy(),
                    roles["part_nbox"][p0:p1].copy() if pred else None,
                    roles["part_nverb"][p0:p1].copy() if pred else None))

    def _by_shape(self, block: CompactBlock, sig: np.ndarray, units: np.ndarray, pos: np.ndarray, end: np.ndarray,
                  gap: np.ndarray) -> bool:
        """Read a block whose every frame has a shape learnt before: no grammar, depth or schema work, only the
        values (numbers, names, states, keys), with their own checks. False (nothing read) when a frame's shape
        is new: the full pass reads the block."""
        if units.size < 2 or units[0] != 0:
            return False
        lens = np.diff(units)
        ids = np.empty(lens.size, dtype=np.intp)    # the shape of each frame
        distinct = np.unique(lens)
        for L in distinct.tolist():
            if distinct.size == 1:
                rows = np.arange(lens.size)
                m = sig[1:].reshape(-1, L)
            else:
                rows = np.flatnonzero(lens == L)
                m = sig[units[rows, None] + 1 + np.arange(L)]
            same = (m == m[0]).all(axis=1)
            if same.all():
                kinds = [(rows, m[0])]
            else:
                uniq, inverse = np.unique(m, axis=0, return_inverse=True)
                inverse = inverse.ravel()
                kinds = [(rows[inverse == k], uniq[k]) for k in range(uniq.shape[0])]
            for r, row in kinds:
                k = self.shapes.ids.get(row.tobytes())
                if k is None:
                    return False
                ids[r] = k
        first = units[:-1] + 1                      # each frame's first token

        def tokens(field):
            """Per frame, file order: the tokens of one role."""
            return self.shapes.gather(field, ids, first)

        def counts(field):
            """Per frame, file order: a count array of the shapes."""
            return self.shapes.gather(field, ids)

        arr, u64 = block.arr, block.u64

        def scalars(t):
            return end[t] + 1, gap[t]

        ign = tokens("ign")
        if ign.size and not literal_or_number(arr, u64, *scalars(ign)).all():
            raise Unexpected("scalar")
        hvals, ok = json_numbers(arr, u64, *scalars(tokens("hbox")))
        nvals, ok2 = json_numbers(arr, u64, *scalars(tokens("num")))
        if not (ok.all() and ok2.all()):
            raise Unexpected("a box holds something else than finite numbers")
        in_video = np.cumsum(counts("nvideos")) + (self.n_videos - 1)
        self._append(block, pos, end, tokens("videos"), tokens("frame"), in_video, counts("frame_humans"),
                     counts("human_parts"), hvals.reshape(-1, 4), nvals.reshape(-1, 4),
                     counts("part_nbox") if self.pred else None, counts("part_nverb") if self.pred else None,
                     tokens("names"), tokens("verbs"))
        return True

    def _append(self, block: CompactBlock, pos: np.ndarray, end: np.ndarray, video_tok: np.ndarray,
                frame_tok: np.ndarray, in_video: np.ndarray, frame_humans: np.ndarray, nparts: np.ndarray,
                human_box: np.ndarray, other_box: np.ndarray, part_nbox: Optional[np.ndarray],
                part_nverb: Optional[np.ndarray], name_tok: np.ndarray, verb_tok: np.ndarray) -> None:
        """Append one block's frames, in file order, to the arrays (both readers of a block end here): the keys of
        the videos it opens and of its frames (Python str, few), the frames' videos (in_video), the counts, the
        human boxes, the part (ground truth) or proposal (prediction) boxes, the part names (unique per human) and
        the states (string tokens of the block)."""
        if in_video.size and in_video.min() < 0:
            raise Unexpected("frame outside a video")
        if self.reader is not None and self.reader.count_fault(frame_humans, part_nverb, part_nbox):
            raise Unexpected("a count rule")        # _by_json names it
        self.video_key += texts(block, pos[video_tok], end[video_tok])
        self.frame_key += texts(block, pos[frame_tok], end[frame_tok])
        self.n_videos += video_tok.size
        self.frame_video.append(in_video, self.fraction)
        self.frame_humans.append(frame_humans, self.fraction)
        self.human_parts.append(nparts, self.fraction)
        self.human_box.append(human_box, self.fraction)
        if self.pred:
            self.prop_box.append(other_box, self.fraction)
            self.part_nbox.append(part_nbox, self.fraction)
            self.part_nverb.append(part_nverb, self.fraction)
        else:
            self.part_box.append(other_box, self.fraction)
        self.names.add_tokens(block, pos[name_tok], end[name_tok], self.fraction)
        _distinct_names(self.names.last, nparts)
        self.verbs.add_tokens(block, pos[verb_tok], end[verb_tok], self.fraction)


# opening brackets whose container the scorer ignores, by the level they open and the class of their key: under
# a frame (level 4) any key but humans, under a human (6) any but box and parts, under a part (8) any but box and verb
_IGNORED_OPEN = np.zeros((MAX_LEVEL + 2, 6), dtype=bool)
_IGNORED_OPEN[4, [K_OTHER, K_BOX, K_PARTS, K_VERB]] = True
_IGNORED_OPEN[6, [K_OTHER, K_HUMANS, K_VERB]] = True
_IGNORED_OPEN[8, [K_OTHER, K_HUMANS, K_PARTS]] = True
_IS_OPEN = np.zeros(NCODES, dtype=bool)
_IS_OPEN[[OBJ_OPEN, ARR_OPEN]] = True
_IS_CLOSE = np.zeros(NCODES, dtype=bool)
_IS_CLOSE[[OBJ_CLOSE, ARR_CLOSE]] = True


def _outside_ignored(code: np.ndarray, level: np.ndarray, kidx: np.ndarray, kcls: np.ndarray
                     ) -> Optional[np.ndarray]:
    """Per token: False inside a container that hangs under a key the scorer ignores ({"humans": [], "x": [{}]}),
    from its opening bracket to its closing one, brackets included; None when the block has none. The key and its
    colon stay: the object reads as if the key held a value the pass does not look at. The containers (valid JSON,
    checked before) are what json.loads would build and flatten_part_file never read, so the arrays are the same."""
    value = kidx + 2                            # the token after a key's colon: its value
    inside = value < code.size
    value, classes = value[inside], kcls[inside]
    opens = value[_IS_OPEN.take(code[value]) & _IGNORED_OPEN[np.minimum(level[value], MAX_LEVEL + 1), classes]]
    if not opens.size:
        return None
    closing = np.flatnonzero(_IS_CLOSE.take(code))
    ends = np.empty_like(opens)
    for lev in np.unique(level[opens]).tolist():    # a container at level L closes at the next close back to L - 1
        at = level[opens] == lev
        back = closing[level[closing] == lev - 1]
        k = np.searchsorted(back, opens[at])
        if (k >= back.size).any():
            raise Unexpected("an ignored container that does not close in its block")
        ends[at] = back[k]
    outer = opens > np.concatenate(([-1], np.maximum.accumulate(ends)[:-1]))    # not inside an earlier one
    step = np.bincount(opens[outer], minlength=code.size + 1) - np.bincount(ends[outer] + 1, minlength=code.size + 1)
    return np.cumsum(step[:-1]) == 0


def _signature(code: np.ndarray, sc: np.ndarray, kidx: np.ndarray, kcls: np.ndarray) -> np.ndarray:
    """One byte per token: its code, whether a scalar precedes it, and for a key its class. Two runs of tokens that
    start after a frame's end with the same signatures pass every check of the grammar and the schema alike."""
    sig = code.copy()
    sig[1:] += sc.view(np.uint8) * np.uint8(NCODES)
    sig[kidx] += kcls * np.uint8(2 * NCODES)
    return sig


def _distinct_names(names: np.ndarray, nparts: np.ndarray) -> None:
    """Unexpected when a human's part names (codes, humans' parts in order) repeat."""
    if names.size == 0:
        return
    owner = np.repeat(np.arange(nparts.size), nparts)
    if int(names.max()) < 63 and int(nparts.max()) < 64:     # a bit per name: sum == or when distinct
        bit = np.left_shift(np.uint64(1), names.astype(np.uint64))
        starts = np.flatnonzero(np.diff(owner, prepend=-1))
        if (np.bitwise_or.reduceat(bit, starts) != np.add.reduceat(bit, starts)).any():
            raise Unexpected("a part name repeated")
    else:
        pairs = owner * (int(names.max()) + 1) + names
        if np.unique(pairs).size != pairs.size:
            raise Unexpected("a part name repeated")


class _Shapes(object):
    """The frame shapes learnt from a file, by signature, and per field of _Shape the concatenation of every shape's
    array: the bank that _by_shape gathers a block's frames from, one pass per field."""

    def __init__(self) -> None:
        self.ids: Dict[bytes, int] = {}         # signature bytes -> shape id
        self.shapes: List[_Shape] = []
        self.bank: Dict[str, Tuple[np.ndarray, np.ndarray, np.ndarray]] = {}    # field -> (values, starts, lengths)

    def __len__(self) -> int:
        return len(self.shapes)

    def __contains__(self, key: bytes) -> bool:
        return key in self.ids

    def add(self, key: bytes, shape: "_Shape") -> None:
        self.ids[key] = len(self.shapes)
        self.shapes.append(shape)
        self.bank = {}

    def gather(self, field: str, ids: np.ndarray, first: Optional[np.ndarray] = None) -> np.ndarray:
        """The arrays `field` of the shapes ids, one after the other (int64); with first, token offsets made
        absolute (each frame's first token added to its own)."""
        if field not in self.bank:
            arrays = [getattr(shape, field) for shape in self.shapes]
            lengths = np.array([x.size for x in arrays], dtype=np.int64)
            self.bank[field] = (np.concatenate(arrays).astype(np.int64), np.cumsum(lengths) - lengths, lengths)
        values, starts, lengths = self.bank[field]
        n = lengths[ids]
        out = values[segments(starts[ids], n)]
        return out if first is None else out + np.repeat(first, n)


def segments(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """int64 indices of the items of segments (segment k: items starts[k] .. starts[k] + lengths[k] - 1), one
    segment after the other."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    return np.repeat(starts - (np.cumsum(lengths) - lengths), lengths) + np.arange(total, dtype=np.int64)


class _Shape(NamedTuple):
    """What a frame of one shape holds, as token offsets from the frame's first token (after the previous frame's
    closing brace: a unit may also close a video and open others), and its counts."""
    hbox: np.ndarray            # tokens followed by a human box's number (4 per human)
    num: np.ndarray             # ... by a part's (ground truth) or a proposal's (prediction) box number
    ign: np.ndarray             # ... by a scalar the scorer ignores (it must still be a JSON literal or number)
    frame: np.ndarray           # the frame's key (1)
    videos: np.ndarray          # the keys of the videos it opens (0 or more)
    names: np.ndarray           # the part names (keys)
    verbs: np.ndarray           # the state strings
    nvideos: np.ndarray         # [len(videos)]
    frame_humans: np.ndarray    # [humans]
    human_parts: np.ndarray     # parts per human
    part_nbox: np.ndarray       # prediction: proposal boxes per part
    part_nverb: np.ndarray      # prediction: verbs per part


def _frames_within(a: int, frame_ends: np.ndarray, stop: Optional[int]) -> None:
    """Unexpected when a frame spans more than MAX_BLOCK bytes of the file, from the end of the frame before (or the
    block's start a) to its closing brace (frame_ends: their file offsets); stop: the end of the file when the
    block is its last (the tail after the last frame counts as well)."""
    bounds = np.concatenate(([a], frame_ends + 1, [stop] if stop is not None else []))
    if bounds.size > 1 and int(np.diff(bounds).max()) > MAX_BLOCK:
        raise Unexpected("a frame larger than MAX_BLOCK")


def _last_frame_end(depth: np.ndarray, code: np.ndarray, tail: int = 4096) -> Optional[int]:
    """1 + the index of the last "}" back at depth 2 (a frame's end), looked for from the end; None if none."""
    n = code.size
    while True:
        a = max(n - tail, 1)
        hit = np.flatnonzero((depth[a:] == 2) & (code[a:] == OBJ_CLOSE))
        if hit.size:
            return a + int(hit[-1]) + 1
        if a == 1:
            return None
        tail *= 4


def _boxes(values: np.ndarray, o: np.ndarray, c: np.ndarray, sc: np.ndarray) -> np.ndarray:
    """(N, 4) boxes from the numbers of N arrays in order (opening token o, closing token c); each array must hold
    exactly 4 numbers (more or fewer: Unexpected, for the stdlib path). sc: a scalar follows the token."""
    count = np.where(sc[o], c - o, 0)
    if values.size != 4 * o.size or (count != 4).any():
        raise Unexpected("a box of other than 4 numbers")
    return values.reshape(-1, 4)
