"""Instruction-file vocabulary in the languages instruction files are written in, read as English.

A project's CLAUDE.md or AGENTS.md is as often Spanish, Portuguese, French, German, Italian,
Russian, Japanese, Chinese or Korean as English, and a team mixes them: "Habla siempre en español", "Responde
siempre en español" and "Always reply in Spanish" are one rule, as "Ne jamais lancer `npm run
dev`" and "Never run `npm run dev`" are. The matcher (match.py) reads English words: stems,
negations, conditions, stop words. So a text in another language is first read into English
words for the things instruction files speak of (`english`):

- the words of rules: always / never / not / only / when / unless, answer / speak / communicate,
  write / create / use / run / start, comments, commits, messages, tests, documentation, files,
  code, the user, questions, explanations; the names of languages ("español" is Spanish);
- each language's stop words (articles, prepositions, pronouns, auxiliaries), dropped: an "en"
  or a "de" two Spanish lines share is no evidence they state one rule;
- for Japanese, Chinese and Korean, which write no spaces between words (or glue particles to
  them), the same vocabulary as substrings.

The table is general vocabulary of instruction files, a few dozen words a language, written
for the phenomenon (a rule in another language), not from any set's lines. What it does not
know stays as written: a word it does not translate is still a word, only unshared.

`command_concepts` reads what a command does ("`npm run dev`" starts the development server),
so a rule naming the command meets one describing the thing.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# word (lowercase) -> its English reading ("" drops it: a stop word). Accents optional: each
# key is also looked up without them ("espanol", "nao", "tambien").
_SPANISH = """
siempre:always nunca:never jamas:never jamás:never no:not tampoco:nor solo:only sólo:only solamente:only
únicamente:only unicamente:only cuando:when si:if salvo:unless excepto:except sin:without
responde:respond responder:respond respondé:respond respuesta:response respuestas:responses contesta:respond
habla:speak hablar:speak comunícate:communicate comunicate:communicate comunicación:communication
comunicacion:communication comunicarte:communicate escribe:write escribir:write escriba:write redacta:write
redactadas:write redactados:write redactar:write usa:use usar:use utiliza:use utilizar:use use:use
ejecuta:run ejecutar:run corre:run correr:run inicia:start iniciar:start arranca:start lanza:start
crea:create crear:create genera:generate generar:generate añade:add agrega:add agregar:add
pregunta:question preguntas:questions preguntar:ask solicita:ask pide:ask aclaración:clarification
aclaracion:clarification aclaraciones:clarification ambigua:ambiguous ambiguo:ambiguous dudas:doubt duda:doubt
explicación:explanation explicaciones:explanations explica:explain sugerencias:suggestions
incluyendo:including incluso:including
comentario:comment comentarios:comments código:code codigo:code mensaje:message mensajes:messages
confirmación:commit prueba:test pruebas:tests archivo:file archivos:files fichero:file ficheros:files
documentación:documentation documentacion:documentation cambio:change cambios:changes usuario:user
idioma:language lengua:language exclusivamente:only todas:all todos:all toda:all todo:all cada:every
debe:must deben:must debes:must servidor:server desarrollo:development
español:Spanish castellano:Spanish inglés:English ingles:English portugués:Portuguese francés:French
alemán:German japonés:Japanese chino:Chinese coreano:Korean
el: la: los: las: un: una: unos: unas: de: del: al: en: y: o: u: que: con: por: para: se: lo: le: les: mi: mis:
tu: tus: su: sus: es: son: está: esta: están: estar: ser: será: serán: estarán: como: más: muy: ya: este: esta: estos:
nos: te: me: yo:
"""
_PORTUGUESE = """
sempre:always nunca:never jamais:never não:not nao:not só:only apenas:only somente:only quando:when se:if
exceto:except sem:without exceções:exception excecoes:exception exceção:exception
responda:respond responder:respond resposta:response respostas:responses fale:speak falar:speak
fala:speak comunique:communicate comunicação:communication escreva:write escrever:write use:use usar:use
utilize:use execute:run executar:run rode:run inicie:start iniciar:start crie:create criar:create
gere:generate gerar:generate adicione:add produza:produce produzir:produce pergunta:question perguntas:questions
pergunte:ask peça:ask esclarecimento:clarification comentário:comment comentários:comments
código:code mensagem:message mensagens:messages teste:test testes:tests arquivo:file arquivos:files
documentação:documentation mudança:change mudanças:changes alteração:change alterações:changes
usuário:user utilizador:user pedido:request idioma:language língua:language todas:all todos:all toda:all
todo:all cada:every deve:must devem:must precisa:must servidor:server desenvolvimento:development
artefatos:artifacts incluindo:including inclusive:including
português:Portuguese inglês:English espanhol:Spanish francês:French alemão:German
japonês:Japanese chinês:Chinese coreano:Korean brasil:Brazil
o: a: os: as: um: uma: uns: umas: de: do: da: dos: das: em: no: na: nos: nas: e: ou: que: com: por: para: pelo:
pela: ao: à: é: são: está: estão: estiver: ser: será: seu: sua: seus: suas: você: voce: eu: meu: minha:
"""
_FRENCH = """
toujours:always jamais:never ne: pas:not non:not aucun:no aucune:no seulement:only uniquement:only
quand:when lorsque:when si:if sauf:unless sans:without exception:exception
réponds:respond répondez:respond répondre:respond réponse:response réponses:responses parle:speak
parlez:speak parler:speak communique:communicate communiquez:communicate écris:write écrivez:write
écrire:write rédige:write utilise:use utilisez:use utiliser:use exécute:run exécutez:run exécuter:run
lance:run lancez:run lancer:run démarre:start démarrez:start démarrer:start crée:create créez:create
créer:create génère:generate générer:generate ajoute:add ajoutez:add ajouter:add question:question
demande:ask demandez:ask demander:ask commentaire:comment commentaires:comments code:code message:message
messages:messages test:test tests:tests fichier:file fichiers:files documentation:documentation
modification:change modifications:changes changement:change changements:changes utilisateur:user langue:language
tous:all toutes:all tout:all toute:all chaque:every doit:must doivent:must dois:must faut:must
serveur:server développement:development français:French anglais:English espagnol:Spanish portugais:Portuguese
allemand:German compris:including notamment:including japonais:Japanese chinois:Chinese coréen:Korean
le: la: les: l: n: y: un: une: des: de: du: d: au: aux: en: et: ou: que: qu: qui: avec: par: pour: dans: sur: ce: cet:
cette: ces: se: est: sont: être: sera: vous: tu: te: je: nous: même: moi: votre: vos: ton: tes: son: sa: ses: il: elle:
"""
_GERMAN = """
immer:always stets:always nie:never niemals:never nicht:not kein:no keine:no keinen:no nur:only wenn:when
falls:if außer:unless ausser:unless ohne:without antworte:respond antworten:respond antwortet:respond
antwort:response sprich:speak sprechen:speak kommuniziere:communicate kommunikation:communication schreibe:write
schreiben:write verwende:use verwenden:use benutze:use nutze:use führe:run ausführen:run starte:start
starten:start erstelle:create erstellen:create generiere:generate füge:add frage:question fragen:ask
kommentar:comment kommentare:comments code:code nachricht:message nachrichten:messages test:test tests:tests
datei:file dateien:files dokumentation:documentation änderung:change änderungen:changes benutzer:user
nutzer:user sprache:language alle:all jede:every jeder:every jedes:every muss:must müssen:must sollst:must
server:server entwicklung:development deutsch:German englisch:English spanisch:Spanish französisch:French
japanisch:Japanese einschließlich:including inklusive:including chinesisch:Chinese koreanisch:Korean
der: die: das: den: dem: des: ein: eine: einen: einem: einer: und: oder: auf: mit: für: fur: von: zu: zum: zur:
im: in: ist: sind: sein: wird: werden: du: sie: ihr: wir: ich: dein: deine: selbst: bitte:please
"""

_ITALIAN = """
sempre:always mai:never non:not solo:only soltanto:only quando:when se:if tranne:except senza:without
rispondi:respond rispondere:respond risposta:response risposte:responses parla:speak parlare:speak
comunica:communicate comunicazione:communication scrivi:write scrivere:write usa:use usare:use utilizza:use
esegui:run eseguire:run avvia:start avviare:start lancia:run crea:create creare:create genera:generate
aggiungi:add domanda:question domande:questions chiedi:ask chiarimento:clarification commento:comment
commenti:comments codice:code messaggio:message messaggi:messages test:test file:file documentazione:documentation
modifica:change modifiche:changes utente:user lingua:language tutti:all tutte:all tutto:all ogni:every
deve:must devi:must server:server sviluppo:development italiano:Italian inglese:English spagnolo:Spanish
francese:French tedesco:German incluso:including inclusi:including giapponese:Japanese cinese:Chinese
il: lo: la: i: gli: le: un: uno: una: di: del: della: dei: delle: in: nel: nella: e: o: che: con: per: su: da:
al: alla: è: sono: sei: tu: io: noi: voi: questo: questa:
"""
_RUSSIAN = """
всегда:always никогда:never не:not только:only когда:when если:if кроме:except без:without
отвечай:respond отвечайте:respond ответ:response ответы:responses говори:speak говорите:speak общайся:communicate
общение:communication пиши:write пишите:write писать:write используй:use используйте:use запускай:run
запускайте:run запусти:run создавай:create создавайте:create создай:create добавляй:add добавь:add вопрос:question
вопросы:questions спрашивай:ask уточни:clarify уточнение:clarification комментарий:comment комментарии:comments
код:code коде:code кода:code коммит:commit коммиты:commits сообщение:message сообщения:messages
сообщений:messages тест:test
тесты:tests файл:file файлы:files документация:documentation документацию:documentation изменения:changes
пользователь:user пользователю:user пользователем:user язык:language языке:language все:all всё:all каждый:every
должен:must должны:must сервер:server разработки:development русском:Russian русский:Russian английском:English
английский:English
и: в: во: на: с: со: по: к: ко: о: об: от: для: из: за: что: это: как: а: или: у: ты: вы: мы: я: твой: ваш:
"""


def _strip_accents(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")


def _table(block: str) -> dict[str, str]:
    table: dict[str, str] = {}
    for pair in block.split():
        word, _, english = pair.partition(":")
        table.setdefault(word, english)
        table.setdefault(_strip_accents(word), english)
    return table


# One table a language: "no" is Spanish for "not" and Portuguese for "in the", "se" Spanish
# for "itself" and Portuguese for "if". A text is read in the language most of its words are.
LANGUAGES = {name: _table(block) for name, block in
             (("Spanish", _SPANISH), ("Portuguese", _PORTUGUESE), ("French", _FRENCH), ("German", _GERMAN),
              ("Italian", _ITALIAN), ("Russian", _RUSSIAN))}
# Words of those tables English uses too: they say nothing of a text's language.
_ENGLISH_TOO = frozenset("""
a o u y no me do as in on is it be am an die das den des man art son sin con use all code test tests message
messages question exception server documentation file files im ton sur tu nos mit pas per i da su al lo
""".split())
_FOREIGN = frozenset(w for table in LANGUAGES.values() for w in table) - _ENGLISH_TOO
_MIN_HITS = 2  # words of one language (and not English) a text needs to be read as that language

# Japanese, Chinese and Korean: substrings, longest first. Each reading is padded with spaces
# (the scripts write none between words), and a language's name is capitalised as English
# writes it (a proper name: a strong feature).
_CJK = {
    # languages and scripts
    "简体": "simplified", "簡體": "simplified", "繁体": "traditional", "繁體": "traditional",
    "中文": "Chinese", "汉语": "Chinese", "漢語": "Chinese", "英文": "English", "英语": "English",
    "英語": "English", "日本語": "Japanese", "日本语": "Japanese", "한국어": "Korean", "영어": "English",
    # Japanese
    "常に": "always", "必ず": "always", "いつも": "always", "絶対に": "never", "決して": "never",
    "しないでください": "not", "しないで": "not", "しないこと": "not", "しない": "not", "禁止": "never",
    "のみ": "only", "だけ": "only", "場合": "when",
    "コミュニケーション": "communicate", "回答": "respond", "返答": "respond", "応答": "respond",
    "返信": "respond", "会話": "communicate", "対話": "communicate", "やり取り": "communicate",
    "話す": "speak", "話して": "speak", "説明": "explanation", "質問": "question",
    "コメント": "comments", "コミット": "commit", "メッセージ": "message", "テスト": "tests",
    "ドキュメント": "documentation", "文書": "documentation", "コード": "code", "ファイル": "file",
    "作業": "work", "簡潔": "concise", "使用": "use", "使う": "use", "使って": "use", "書く": "write",
    "書いて": "write", "記述": "write", "実行": "run", "起動": "start", "開発サーバー": "dev server",
    "サーバー": "server", "ユーザー": "user", "変更": "change", "確認": "confirm", "統一": "consistent",
    "考え": "think", "思考": "think", "重要": "important", "すべて": "all", "全て": "all",
    "プロジェクト": "project", "日本語で": "in Japanese", "英語で": "in English",
    # Chinese
    "回复": "respond", "回覆": "respond", "答复": "respond", "交流": "communicate", "沟通": "communicate",
    "溝通": "communicate", "对话": "communicate", "注释": "comments", "註釋": "comments", "提交": "commit",
    "提交说明": "commit message", "说明": "explanation",
    "提交信息": "commit message", "提交消息": "commit message",
    "提交表单": "submit form", "测试": "tests", "測試": "tests", "文档": "documentation",
    "文檔": "documentation", "代码": "code", "代碼": "code", "始终": "always", "总是": "always",
    "一律": "always", "永远": "always", "不要": "never", "切勿": "never", "不得": "never", "绝不": "never",
    "运行": "run", "执行": "run", "启动": "start", "开发服务器": "dev server", "服务器": "server",
    "用户": "user", "解释": "explanation", "简洁": "concise", "文件": "file", "修改": "change",
    "请勿": "never", "勿": "never", "别": "never", "不用": "not", "无需": "not", "不必": "not",
    "ないでください": "not", "ないで": "not", "ないこと": "not", "ません": "not",
    "询问": "ask", "提问": "ask", "只在": "only when", "仅在": "only when", "除非": "unless", "否则": "otherwise",
    "所有": "all", "明确": "explicitly", "要求": "ask", "如果": "if",
    # Korean (its words are spaced, its particles glued on: substrings too)
    "항상": "always", "절대": "never", "답변": "respond", "응답": "respond", "대답": "respond",
    "대화": "communicate", "소통": "communicate", "주석": "comments", "커밋": "commit", "메시지": "message",
    "테스트": "tests", "문서": "documentation", "코드": "code", "사용자": "user", "사용": "use",
    "실행": "run", "설명": "explanation", "파일": "file", "질문": "question", "모든": "all", "작업": "work",
    "진행": "proceed", "작성": "write", "하지 마세요": "not", "하지 마십시오": "not", "하지 마": "not",
    # endings glued to a verb (a lone particle, one syllable, is no word to the matcher)
    "합니다": "", "하세요": "", "해주세요": "", "해 주세요": "", "하십시오": "", "입니다": "", "으로": "", "에서": "",
}
# Hiragana runs (Japanese particles and verb endings; content words are kanji and katakana) and
# the Chinese characters of grammar, not content.
_PARTICLES_RE = re.compile("[\u3040-\u309f]+|[的了是在和与及或请都也把被]")
_SOV_RE = re.compile("[\u3040-\u30ff\uac00-\ud7af]")  # kana or Hangul: a verb-final language
_CJK_SENTENCE_RE = re.compile("([。！？!?\n]+)")


def _negation_first(sentence: str) -> str:
    words = sentence.split(" ")
    if "not" not in words[1:] and "never" not in words[1:]:
        return sentence
    return "never " + " ".join(w for w in words if w not in ("not", "never"))


_CJK_RE = re.compile("|".join(sorted(map(re.escape, _CJK), key=len, reverse=True)))
_LATIN_WORD_RE = re.compile(r"[^\W\d_]+")


# French and German put the negation after the verb ("Ne lancez jamais X", "Starte niemals X");
# English readings put it first, where the matcher reads what a negation rejects.
_FRENCH_NEGATION_RE = re.compile(r"\bn(?:e\s+|['’]\s*)(\w+)\s+(jamais|pas|plus)\b", re.IGNORECASE)
_GERMAN_NEGATION_RE = re.compile(r"(^|[.!?:;]\s*|\*\*\s*)(\w+)\s+(nie|niemals|nicht|kein|keine|keinen)\b",
                                 re.IGNORECASE)


@lru_cache(maxsize=16_384)
def english(text: str) -> str:
    """`text` with the words of another language read as English (a stop word dropped), or
    `text` itself when it is English: an English text is never changed."""
    if not text.isascii() and _CJK_RE.search(text) is not None:
        sov = _SOV_RE.search(text) is not None
        text = _CJK_RE.sub(lambda found: f" {_CJK[found.group()]} ", text)
        if sov:
            # Japanese and Korean end a sentence with its negation ("npm を使わないでください"):
            # read first, where a negation rejects what follows it.
            text = "".join(_negation_first(part) for part in _CJK_SENTENCE_RE.split(text))
        # What is left between the words read: Japanese particles and endings (hiragana) and
        # Chinese function characters, which every sentence has ("で", "の", "的").
        return _PARTICLES_RE.sub(" ", text)
    if _FOREIGN.isdisjoint(text.lower().replace("'", " ").split()):
        # Most texts: a look-up in C before any word is read (a foreign word glued to
        # punctuation is missed here only where the text has no second one).
        return text
    words = {w for w in _LATIN_WORD_RE.findall(text.lower()) if w not in _ENGLISH_TOO}  # distinct words
    if len(words) < _MIN_HITS:
        return text
    best, hits = None, _MIN_HITS - 1
    for table in LANGUAGES.values():
        # An accented word counts twice: no English word has its letters ("não", "réponds").
        found = sum(1 if w.isascii() else 2 for w in words if w in table)
        if found > hits:
            best, hits = table, found
    if best is None:
        return text
    table = best
    if table is LANGUAGES["French"]:
        text = _FRENCH_NEGATION_RE.sub(r"\2 \1", text)
    elif table is LANGUAGES["German"]:
        text = _GERMAN_NEGATION_RE.sub(r"\1\3 \2", text)
    return _LATIN_WORD_RE.sub(lambda found: table.get(found.group().lower(), found.group()), text)


# What a command does, by the command line, where rules name the thing in words as often as by
# its command: `npm run dev` (`pnpm dev`, `vite`, `next dev`, `manage.py runserver`) starts the
# dev server, `git commit --no-verify` bypasses the hooks, `git push --force` force-pushes,
# `ruff check` lints. Not a test runner: read as "tests", `pytest` joined rules on running the
# tests with rules on how to write them; nor an install, which rules on setting up and rules
# against new dependencies both name. (pattern on the span lowercased, English words.)
_COMMANDS = (
    (re.compile(r"^(?:(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:dev|serve|start)\b|(?:npx\s+)?vite(?:\s+dev)?$"
                r"|(?:npx\s+)?(?:next|nuxt|astro|remix)\s+dev\b|ng\s+serve\b|.*\brunserver\b|flask\s+run\b"
                r"|rails\s+s(?:erver)?\b|hugo\s+server\b)"), "dev server"),
    # a flag that skips the hooks: "never bypass the pre-commit hooks" forbids it in words
    (re.compile(r".*(?:--no-verify|\s-n$)"), "bypass hooks"),
    (re.compile(r"^git\s+push\b.*(?:--force|\s-f\b)"), "force push"),
    (re.compile(r"^git\s+reset\b.*--hard"), "discard changes"),
    (re.compile(r"^(?:git\s+clean\b|rm\s+-\w*r)"), "delete files"),
    (re.compile(r"^(?:(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:lint|eslint)\b|(?:npx\s+)?eslint\b|ruff\s+check\b"
                r"|golangci-lint\b|cargo\s+clippy\b)"), "lint"),
    (re.compile(r"^(?:(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?format\b|(?:npx\s+)?prettier\b|ruff\s+format\b|black\b"
                r"|gofmt\b|go\s+fmt\b|cargo\s+fmt\b)"), "format"),
    (re.compile(r"^(?:(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:typecheck|type-check|tsc)\b|(?:npx\s+)?tsc\b|mypy\b"
                r"|pyright\b)"), "type check"),
)


# The programs the patterns above start with: a span starting with another one and giving no
# flag does nothing they know (most spans: a path, a name), read without a pattern run.
_COMMAND_HEADS = frozenset("""
npm pnpm yarn bun npx vite next nuxt astro remix ng flask rails hugo git rm ruff eslint golangci-lint cargo prettier
black gofmt go tsc mypy pyright python python3 uv
""".split())


def command_concepts(span: str) -> str:
    """The English words for what a command line does ("dev server" for `pnpm dev`), or ""."""
    words = span.lower().split()
    if not words or (words[0] not in _COMMAND_HEADS and "-" not in span and "runserver" not in span):
        return ""
    span = " ".join(words)
    return " ".join(found for pattern, found in _COMMANDS if pattern.match(span))


# Practices instruction files name in many ways, few of their words shared: test-first is "TDD",
# "test-driven", "red-green", "a failing test first", "tests before the implementation". Each
# such phrase gives the practice's one word. (pattern on the text lowercased, the word.)
_PRACTICES = (
    (re.compile(r"\btdd\b|\btest[- ]driven\b|\bred[-/, ]+green\b|\btest-first\b"
                r"|\bfailing tests?\b[^.;!?]{0,20}\bfirst\b"
                r"|\b(?:write|writing|add|adding|create|creating|start with) (?:the |a |your )?(?:failing )?tests?"
                r" (?:first|before)\b|(?:^|[.;:!*]\s*)(?:the )?tests? (?:comes? |go |goes )?first\b"
                r"|\btests? before (?:the |any |writing (?:the |any )?)?(?:implementation|production code|coding)\b"),
     "testfirst"),
)


def practices(lowered: str) -> list[str]:
    """The words of the practices a text (lowercased) names ("testfirst" for "write a failing
    test first")."""
    if "test" not in lowered and "tdd" not in lowered and "green" not in lowered:
        return []
    return [word for pattern, word in _PRACTICES if pattern.search(lowered)]
