from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListVariantsRequest(_message.Message):
    __slots__ = ("game",)
    GAME_FIELD_NUMBER: _ClassVar[int]
    game: str
    def __init__(self, game: _Optional[str] = ...) -> None: ...

class StrategyInfo(_message.Message):
    __slots__ = ("name", "description", "members", "served_default")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    SERVED_DEFAULT_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    members: int
    served_default: bool
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., members: _Optional[int] = ..., served_default: _Optional[bool] = ...) -> None: ...

class VariantInfo(_message.Message):
    __slots__ = ("game", "variant", "words", "word_length", "store_version", "dictionary_sha256", "strategies")
    GAME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    WORDS_FIELD_NUMBER: _ClassVar[int]
    WORD_LENGTH_FIELD_NUMBER: _ClassVar[int]
    STORE_VERSION_FIELD_NUMBER: _ClassVar[int]
    DICTIONARY_SHA256_FIELD_NUMBER: _ClassVar[int]
    STRATEGIES_FIELD_NUMBER: _ClassVar[int]
    game: str
    variant: str
    words: int
    word_length: int
    store_version: str
    dictionary_sha256: str
    strategies: _containers.RepeatedCompositeFieldContainer[StrategyInfo]
    def __init__(self, game: _Optional[str] = ..., variant: _Optional[str] = ..., words: _Optional[int] = ..., word_length: _Optional[int] = ..., store_version: _Optional[str] = ..., dictionary_sha256: _Optional[str] = ..., strategies: _Optional[_Iterable[_Union[StrategyInfo, _Mapping]]] = ...) -> None: ...

class BuildingVariant(_message.Message):
    __slots__ = ("game", "variant", "state", "fraction", "eta_seconds")
    GAME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    FRACTION_FIELD_NUMBER: _ClassVar[int]
    ETA_SECONDS_FIELD_NUMBER: _ClassVar[int]
    game: str
    variant: str
    state: str
    fraction: float
    eta_seconds: float
    def __init__(self, game: _Optional[str] = ..., variant: _Optional[str] = ..., state: _Optional[str] = ..., fraction: _Optional[float] = ..., eta_seconds: _Optional[float] = ...) -> None: ...

class ListVariantsReply(_message.Message):
    __slots__ = ("variants", "building")
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    BUILDING_FIELD_NUMBER: _ClassVar[int]
    variants: _containers.RepeatedCompositeFieldContainer[VariantInfo]
    building: _containers.RepeatedCompositeFieldContainer[BuildingVariant]
    def __init__(self, variants: _Optional[_Iterable[_Union[VariantInfo, _Mapping]]] = ..., building: _Optional[_Iterable[_Union[BuildingVariant, _Mapping]]] = ...) -> None: ...

class JottoTurn(_message.Message):
    __slots__ = ("guess", "jots")
    GUESS_FIELD_NUMBER: _ClassVar[int]
    JOTS_FIELD_NUMBER: _ClassVar[int]
    guess: str
    jots: int
    def __init__(self, guess: _Optional[str] = ..., jots: _Optional[int] = ...) -> None: ...

class JottoState(_message.Message):
    __slots__ = ("role", "history", "common_secret")
    class Role(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        ROLE_UNSPECIFIED: _ClassVar[JottoState.Role]
        HIDER: _ClassVar[JottoState.Role]
        GUESSER: _ClassVar[JottoState.Role]
    ROLE_UNSPECIFIED: JottoState.Role
    HIDER: JottoState.Role
    GUESSER: JottoState.Role
    ROLE_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    COMMON_SECRET_FIELD_NUMBER: _ClassVar[int]
    role: JottoState.Role
    history: _containers.RepeatedCompositeFieldContainer[JottoTurn]
    common_secret: bool
    def __init__(self, role: _Optional[_Union[JottoState.Role, str]] = ..., history: _Optional[_Iterable[_Union[JottoTurn, _Mapping]]] = ..., common_secret: _Optional[bool] = ...) -> None: ...

class DudoClaim(_message.Message):
    __slots__ = ("count", "face")
    COUNT_FIELD_NUMBER: _ClassVar[int]
    FACE_FIELD_NUMBER: _ClassVar[int]
    count: int
    face: int
    def __init__(self, count: _Optional[int] = ..., face: _Optional[int] = ...) -> None: ...

class DudoState(_message.Message):
    __slots__ = ("own_dice", "opponent_dice", "roll", "history", "requester_opened")
    OWN_DICE_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_DICE_FIELD_NUMBER: _ClassVar[int]
    ROLL_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    REQUESTER_OPENED_FIELD_NUMBER: _ClassVar[int]
    own_dice: int
    opponent_dice: int
    roll: _containers.RepeatedScalarFieldContainer[int]
    history: _containers.RepeatedCompositeFieldContainer[DudoClaim]
    requester_opened: bool
    def __init__(self, own_dice: _Optional[int] = ..., opponent_dice: _Optional[int] = ..., roll: _Optional[_Iterable[int]] = ..., history: _Optional[_Iterable[_Union[DudoClaim, _Mapping]]] = ..., requester_opened: _Optional[bool] = ...) -> None: ...

class GuessWhoState(_message.Message):
    __slots__ = ("own_count", "opponent_count")
    OWN_COUNT_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_COUNT_FIELD_NUMBER: _ClassVar[int]
    own_count: int
    opponent_count: int
    def __init__(self, own_count: _Optional[int] = ..., opponent_count: _Optional[int] = ...) -> None: ...

class HangmanState(_message.Message):
    __slots__ = ("action", "opponent_word", "asked", "own_pattern")
    class Action(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        ACTION_UNSPECIFIED: _ClassVar[HangmanState.Action]
        CHOOSE_WORD: _ClassVar[HangmanState.Action]
        CHOOSE_LETTER: _ClassVar[HangmanState.Action]
    ACTION_UNSPECIFIED: HangmanState.Action
    CHOOSE_WORD: HangmanState.Action
    CHOOSE_LETTER: HangmanState.Action
    ACTION_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_WORD_FIELD_NUMBER: _ClassVar[int]
    ASKED_FIELD_NUMBER: _ClassVar[int]
    OWN_PATTERN_FIELD_NUMBER: _ClassVar[int]
    action: HangmanState.Action
    opponent_word: str
    asked: str
    own_pattern: str
    def __init__(self, action: _Optional[_Union[HangmanState.Action, str]] = ..., opponent_word: _Optional[str] = ..., asked: _Optional[str] = ..., own_pattern: _Optional[str] = ...) -> None: ...

class SampleMoveRequest(_message.Message):
    __slots__ = ("variant", "strategy", "game_seed", "want_distribution", "jotto", "guesswho", "hangman", "dudo")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    GAME_SEED_FIELD_NUMBER: _ClassVar[int]
    WANT_DISTRIBUTION_FIELD_NUMBER: _ClassVar[int]
    JOTTO_FIELD_NUMBER: _ClassVar[int]
    GUESSWHO_FIELD_NUMBER: _ClassVar[int]
    HANGMAN_FIELD_NUMBER: _ClassVar[int]
    DUDO_FIELD_NUMBER: _ClassVar[int]
    variant: str
    strategy: str
    game_seed: int
    want_distribution: bool
    jotto: JottoState
    guesswho: GuessWhoState
    hangman: HangmanState
    dudo: DudoState
    def __init__(self, variant: _Optional[str] = ..., strategy: _Optional[str] = ..., game_seed: _Optional[int] = ..., want_distribution: _Optional[bool] = ..., jotto: _Optional[_Union[JottoState, _Mapping]] = ..., guesswho: _Optional[_Union[GuessWhoState, _Mapping]] = ..., hangman: _Optional[_Union[HangmanState, _Mapping]] = ..., dudo: _Optional[_Union[DudoState, _Mapping]] = ...) -> None: ...

class MoveProbability(_message.Message):
    __slots__ = ("move", "probability")
    MOVE_FIELD_NUMBER: _ClassVar[int]
    PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    move: str
    probability: float
    def __init__(self, move: _Optional[str] = ..., probability: _Optional[float] = ...) -> None: ...

class SampleMoveReply(_message.Message):
    __slots__ = ("move", "probability", "distribution", "source", "store_version", "strategy", "member", "consistent_words", "history_on_policy")
    class Source(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        SOURCE_UNSPECIFIED: _ClassVar[SampleMoveReply.Source]
        BOOK: _ClassVar[SampleMoveReply.Source]
        LIVE: _ClassVar[SampleMoveReply.Source]
        DEGRADED: _ClassVar[SampleMoveReply.Source]
    SOURCE_UNSPECIFIED: SampleMoveReply.Source
    BOOK: SampleMoveReply.Source
    LIVE: SampleMoveReply.Source
    DEGRADED: SampleMoveReply.Source
    MOVE_FIELD_NUMBER: _ClassVar[int]
    PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    DISTRIBUTION_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    STORE_VERSION_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    MEMBER_FIELD_NUMBER: _ClassVar[int]
    CONSISTENT_WORDS_FIELD_NUMBER: _ClassVar[int]
    HISTORY_ON_POLICY_FIELD_NUMBER: _ClassVar[int]
    move: str
    probability: float
    distribution: _containers.RepeatedCompositeFieldContainer[MoveProbability]
    source: SampleMoveReply.Source
    store_version: str
    strategy: str
    member: int
    consistent_words: int
    history_on_policy: bool
    def __init__(self, move: _Optional[str] = ..., probability: _Optional[float] = ..., distribution: _Optional[_Iterable[_Union[MoveProbability, _Mapping]]] = ..., source: _Optional[_Union[SampleMoveReply.Source, str]] = ..., store_version: _Optional[str] = ..., strategy: _Optional[str] = ..., member: _Optional[int] = ..., consistent_words: _Optional[int] = ..., history_on_policy: _Optional[bool] = ...) -> None: ...

class GetStatsRequest(_message.Message):
    __slots__ = ("variant",)
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    variant: str
    def __init__(self, variant: _Optional[str] = ...) -> None: ...

class StrategyStats(_message.Message):
    __slots__ = ("strategy", "description", "figures", "labels", "headline", "headline_kind", "units")
    class FiguresEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class UnitsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    FIGURES_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    HEADLINE_FIELD_NUMBER: _ClassVar[int]
    HEADLINE_KIND_FIELD_NUMBER: _ClassVar[int]
    UNITS_FIELD_NUMBER: _ClassVar[int]
    strategy: str
    description: str
    figures: _containers.ScalarMap[str, float]
    labels: _containers.ScalarMap[str, str]
    headline: str
    headline_kind: str
    units: _containers.ScalarMap[str, str]
    def __init__(self, strategy: _Optional[str] = ..., description: _Optional[str] = ..., figures: _Optional[_Mapping[str, float]] = ..., labels: _Optional[_Mapping[str, str]] = ..., headline: _Optional[str] = ..., headline_kind: _Optional[str] = ..., units: _Optional[_Mapping[str, str]] = ...) -> None: ...

class VariantStats(_message.Message):
    __slots__ = ("variant", "store_version", "served_strategy", "words", "dictionary_sha256", "code_version", "build_time", "strategies")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    STORE_VERSION_FIELD_NUMBER: _ClassVar[int]
    SERVED_STRATEGY_FIELD_NUMBER: _ClassVar[int]
    WORDS_FIELD_NUMBER: _ClassVar[int]
    DICTIONARY_SHA256_FIELD_NUMBER: _ClassVar[int]
    CODE_VERSION_FIELD_NUMBER: _ClassVar[int]
    BUILD_TIME_FIELD_NUMBER: _ClassVar[int]
    STRATEGIES_FIELD_NUMBER: _ClassVar[int]
    variant: str
    store_version: str
    served_strategy: str
    words: int
    dictionary_sha256: str
    code_version: str
    build_time: str
    strategies: _containers.RepeatedCompositeFieldContainer[StrategyStats]
    def __init__(self, variant: _Optional[str] = ..., store_version: _Optional[str] = ..., served_strategy: _Optional[str] = ..., words: _Optional[int] = ..., dictionary_sha256: _Optional[str] = ..., code_version: _Optional[str] = ..., build_time: _Optional[str] = ..., strategies: _Optional[_Iterable[_Union[StrategyStats, _Mapping]]] = ...) -> None: ...

class GetStatsReply(_message.Message):
    __slots__ = ("variants", "building")
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    BUILDING_FIELD_NUMBER: _ClassVar[int]
    variants: _containers.RepeatedCompositeFieldContainer[VariantStats]
    building: _containers.RepeatedCompositeFieldContainer[BuildingVariant]
    def __init__(self, variants: _Optional[_Iterable[_Union[VariantStats, _Mapping]]] = ..., building: _Optional[_Iterable[_Union[BuildingVariant, _Mapping]]] = ...) -> None: ...

class SampleMovesRequest(_message.Message):
    __slots__ = ("requests",)
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    requests: _containers.RepeatedCompositeFieldContainer[SampleMoveRequest]
    def __init__(self, requests: _Optional[_Iterable[_Union[SampleMoveRequest, _Mapping]]] = ...) -> None: ...

class SampleMoveResult(_message.Message):
    __slots__ = ("code", "message", "reply", "index")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REPLY_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    code: int
    message: str
    reply: SampleMoveReply
    index: int
    def __init__(self, code: _Optional[int] = ..., message: _Optional[str] = ..., reply: _Optional[_Union[SampleMoveReply, _Mapping]] = ..., index: _Optional[int] = ...) -> None: ...

class SampleMovesReply(_message.Message):
    __slots__ = ("results",)
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[SampleMoveResult]
    def __init__(self, results: _Optional[_Iterable[_Union[SampleMoveResult, _Mapping]]] = ...) -> None: ...

class GetWordsRequest(_message.Message):
    __slots__ = ("variant",)
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    variant: str
    def __init__(self, variant: _Optional[str] = ...) -> None: ...

class GetWordsReply(_message.Message):
    __slots__ = ("variant", "words", "common", "word_length", "store_version")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    WORDS_FIELD_NUMBER: _ClassVar[int]
    COMMON_FIELD_NUMBER: _ClassVar[int]
    WORD_LENGTH_FIELD_NUMBER: _ClassVar[int]
    STORE_VERSION_FIELD_NUMBER: _ClassVar[int]
    variant: str
    words: _containers.RepeatedScalarFieldContainer[str]
    common: _containers.RepeatedScalarFieldContainer[bool]
    word_length: int
    store_version: str
    def __init__(self, variant: _Optional[str] = ..., words: _Optional[_Iterable[str]] = ..., common: _Optional[_Iterable[bool]] = ..., word_length: _Optional[int] = ..., store_version: _Optional[str] = ...) -> None: ...

class DudoRound(_message.Message):
    __slots__ = ("own_dice", "opponent_dice", "roll", "opponent_roll", "reviewed_opened", "claims", "unfinished")
    OWN_DICE_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_DICE_FIELD_NUMBER: _ClassVar[int]
    ROLL_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_ROLL_FIELD_NUMBER: _ClassVar[int]
    REVIEWED_OPENED_FIELD_NUMBER: _ClassVar[int]
    CLAIMS_FIELD_NUMBER: _ClassVar[int]
    UNFINISHED_FIELD_NUMBER: _ClassVar[int]
    own_dice: int
    opponent_dice: int
    roll: _containers.RepeatedScalarFieldContainer[int]
    opponent_roll: _containers.RepeatedScalarFieldContainer[int]
    reviewed_opened: bool
    claims: _containers.RepeatedCompositeFieldContainer[DudoClaim]
    unfinished: bool
    def __init__(self, own_dice: _Optional[int] = ..., opponent_dice: _Optional[int] = ..., roll: _Optional[_Iterable[int]] = ..., opponent_roll: _Optional[_Iterable[int]] = ..., reviewed_opened: _Optional[bool] = ..., claims: _Optional[_Iterable[_Union[DudoClaim, _Mapping]]] = ..., unfinished: _Optional[bool] = ...) -> None: ...

class JottoGame(_message.Message):
    __slots__ = ("role", "turns", "secret")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    role: JottoState.Role
    turns: _containers.RepeatedCompositeFieldContainer[JottoTurn]
    secret: str
    def __init__(self, role: _Optional[_Union[JottoState.Role, str]] = ..., turns: _Optional[_Iterable[_Union[JottoTurn, _Mapping]]] = ..., secret: _Optional[str] = ...) -> None: ...

class AnalyzeGameRequest(_message.Message):
    __slots__ = ("variant", "strategy", "dudo", "jotto")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    DUDO_FIELD_NUMBER: _ClassVar[int]
    JOTTO_FIELD_NUMBER: _ClassVar[int]
    variant: str
    strategy: str
    dudo: _containers.RepeatedCompositeFieldContainer[DudoRound]
    jotto: JottoGame
    def __init__(self, variant: _Optional[str] = ..., strategy: _Optional[str] = ..., dudo: _Optional[_Iterable[_Union[DudoRound, _Mapping]]] = ..., jotto: _Optional[_Union[JottoGame, _Mapping]] = ...) -> None: ...

class MoveValue(_message.Message):
    __slots__ = ("move", "value", "probability")
    MOVE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    move: str
    value: float
    probability: float
    def __init__(self, move: _Optional[str] = ..., value: _Optional[float] = ..., probability: _Optional[float] = ...) -> None: ...

class ReviewedMove(_message.Message):
    __slots__ = ("round", "index", "move", "best_move", "probability", "value", "best_value", "loss", "before", "after", "label", "alternatives", "value_uniform", "best_value_uniform", "continuation", "policy")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    BEST_MOVE_FIELD_NUMBER: _ClassVar[int]
    PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    BEST_VALUE_FIELD_NUMBER: _ClassVar[int]
    LOSS_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    ALTERNATIVES_FIELD_NUMBER: _ClassVar[int]
    VALUE_UNIFORM_FIELD_NUMBER: _ClassVar[int]
    BEST_VALUE_UNIFORM_FIELD_NUMBER: _ClassVar[int]
    CONTINUATION_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    round: int
    index: int
    move: str
    best_move: str
    probability: float
    value: float
    best_value: float
    loss: float
    before: float
    after: float
    label: str
    alternatives: _containers.RepeatedCompositeFieldContainer[MoveValue]
    value_uniform: float
    best_value_uniform: float
    continuation: str
    policy: str
    def __init__(self, round: _Optional[int] = ..., index: _Optional[int] = ..., move: _Optional[str] = ..., best_move: _Optional[str] = ..., probability: _Optional[float] = ..., value: _Optional[float] = ..., best_value: _Optional[float] = ..., loss: _Optional[float] = ..., before: _Optional[float] = ..., after: _Optional[float] = ..., label: _Optional[str] = ..., alternatives: _Optional[_Iterable[_Union[MoveValue, _Mapping]]] = ..., value_uniform: _Optional[float] = ..., best_value_uniform: _Optional[float] = ..., continuation: _Optional[str] = ..., policy: _Optional[str] = ...) -> None: ...

class AnalyzeGameReply(_message.Message):
    __slots__ = ("variant", "store_version", "strategy", "unit", "moves", "accuracy", "costliest", "thresholds", "round_start")
    class ThresholdsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    STORE_VERSION_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    ACCURACY_FIELD_NUMBER: _ClassVar[int]
    COSTLIEST_FIELD_NUMBER: _ClassVar[int]
    THRESHOLDS_FIELD_NUMBER: _ClassVar[int]
    ROUND_START_FIELD_NUMBER: _ClassVar[int]
    variant: str
    store_version: str
    strategy: str
    unit: str
    moves: _containers.RepeatedCompositeFieldContainer[ReviewedMove]
    accuracy: float
    costliest: _containers.RepeatedScalarFieldContainer[int]
    thresholds: _containers.ScalarMap[str, float]
    round_start: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, variant: _Optional[str] = ..., store_version: _Optional[str] = ..., strategy: _Optional[str] = ..., unit: _Optional[str] = ..., moves: _Optional[_Iterable[_Union[ReviewedMove, _Mapping]]] = ..., accuracy: _Optional[float] = ..., costliest: _Optional[_Iterable[int]] = ..., thresholds: _Optional[_Mapping[str, float]] = ..., round_start: _Optional[_Iterable[float]] = ...) -> None: ...
