import { ownValue } from '../lib/objects'
import type { HeadingFact, HtmlFacts } from '../providers/web/html'

/**
 * Which headings are questions. A heading is a question when it ends with a question mark (or
 * opens with "¿") or reads as one: an interrogative followed by an auxiliary or a finite verb
 * ("How do I…", "What is…", "Wie funktioniert…"), or an auxiliary opening before its subject ("Can
 * I…", "Is it…"). Statement headings that merely begin with an interrogative ("What we do", "How
 * it all began", "Why customers stay") are not, and a "How to …" title is a how-to. The word lists
 * cover the languages of the link-text lists that mark questions with words rather than only with
 * punctuation; Japanese, Korean, Persian and Tamil headings count by their question marks and, for
 * Japanese and Korean, their sentence-final question endings.
 */

export type HeadingKind = 'question' | 'how-to' | 'statement'

interface Grammar {
  /** Interrogatives (lower case, may be several words). */
  wh: string[]
  /** Words that, right after an interrogative, make it a question: auxiliaries and common finite verbs. */
  verbs: string[]
  /** Auxiliaries that open a yes/no question when a subject follows. */
  aux: string[]
  /** Subjects (pronouns, determiners) that may follow an opening auxiliary. */
  subjects: string[]
  /** Interrogative + infinitive, or a fixed opening, that make a how-to title. */
  howTo: RegExp
  /** Openings that hold their own verb ("qu'est-ce que", "cos'è"): a question whatever follows. */
  complete?: string[]
}

const GRAMMARS: Record<string, Grammar> = {
  en: {
    wh: ['what', 'why', 'how', 'when', 'where', 'who', 'whom', 'whose', 'which', 'how much', 'how many', 'how long', 'how often', 'how far', 'what kind of', 'which one'],
    verbs: [
      'is',
      'are',
      'was',
      'were',
      'do',
      'does',
      'did',
      'can',
      'could',
      'should',
      'would',
      'will',
      'shall',
      'may',
      'might',
      'must',
      'has',
      'have',
      'had',
      "isn't",
      "aren't",
      "don't",
      "doesn't",
      "can't",
      "won't",
    ],
    aux: [
      'is',
      'are',
      'was',
      'were',
      'do',
      'does',
      'did',
      'can',
      'could',
      'should',
      'would',
      'will',
      'shall',
      'may',
      'might',
      'must',
      'has',
      'have',
      "isn't",
      "aren't",
      "don't",
      "doesn't",
      "can't",
      "won't",
      "shouldn't",
      "what's",
      "who's",
      "where's",
      "how's",
      "when's",
      "why's",
    ],
    subjects: ['i', 'you', 'we', 'they', 'it', 'he', 'she', 'there', 'this', 'that', 'these', 'those', 'my', 'your', 'our', 'their', 'its', 'the', 'a', 'an', 'any', 'anyone', 'someone', 'everyone'],
    howTo: /^how to\b/,
  },
  es: {
    wh: ['qué', 'que', 'por qué', 'cómo', 'cuándo', 'dónde', 'quién', 'quiénes', 'cuál', 'cuáles', 'cuánto', 'cuánta', 'cuántos', 'cuántas'],
    verbs: ['es', 'son', 'era', 'fue', 'está', 'están', 'puedo', 'puede', 'pueden', 'debo', 'debe', 'hay', 'cuesta', 'cuestan', 'significa', 'necesito'],
    aux: ['es', 'son', 'puedo', 'puede', 'hay', 'debo', 'necesito', 'está'],
    subjects: ['el', 'la', 'los', 'las', 'un', 'una', 'mi', 'tu', 'su', 'este', 'esta', 'posible', 'necesario', 'seguro'],
    howTo: /^(cómo|como) [\p{L}]+(ar|er|ir)(se|lo|la|los|las)?\b/u,
  },
  pt: {
    wh: ['o que', 'que', 'por que', 'por quê', 'como', 'quando', 'onde', 'quem', 'qual', 'quais', 'quanto', 'quanta', 'quantos', 'quantas'],
    verbs: ['é', 'são', 'era', 'foi', 'está', 'estão', 'posso', 'pode', 'podem', 'devo', 'deve', 'há', 'custa', 'custam', 'significa', 'preciso'],
    aux: ['é', 'são', 'posso', 'pode', 'há', 'devo', 'preciso', 'está'],
    subjects: ['o', 'a', 'os', 'as', 'um', 'uma', 'meu', 'minha', 'seu', 'sua', 'este', 'esta', 'possível', 'necessário', 'seguro'],
    howTo: /^como [\p{L}]+(ar|er|ir)\b/u,
  },
  fr: {
    complete: ["qu'est-ce que", "qu'est-ce qu'", 'est-ce que', "est-ce qu'"],
    wh: ['que', 'quoi', 'pourquoi', 'comment', 'quand', 'où', 'qui', 'quel', 'quelle', 'quels', 'quelles', 'combien'],
    verbs: ['est', 'sont', 'était', 'faut', 'peut', 'peux', 'puis', 'dois', 'doit', 'coûte', 'coûtent', 'signifie'],
    aux: ['est-ce', 'peut-on', 'puis-je', 'dois-je', 'faut-il', 'existe-t-il', 'y a-t-il', 'est-il', 'sont-ils', 'avez-vous', 'peut-il'],
    subjects: [],
    howTo: /^comment [\p{L}]+(er|ir|re)\b/u,
  },
  de: {
    wh: ['was', 'warum', 'wieso', 'weshalb', 'wie', 'wann', 'wo', 'wer', 'wen', 'wem', 'welche', 'welcher', 'welches', 'wie viel', 'wie viele', 'wie lange', 'woher', 'wohin'],
    verbs: [
      'ist',
      'sind',
      'war',
      'waren',
      'kann',
      'können',
      'kannst',
      'muss',
      'müssen',
      'soll',
      'sollte',
      'sollten',
      'wird',
      'werden',
      'hat',
      'haben',
      'gibt',
      'funktioniert',
      'kostet',
      'kosten',
      'dauert',
      'bedeutet',
      'mache',
      'macht',
      'brauche',
      'brauchen',
      'finde',
      'darf',
      'dürfen',
    ],
    aux: ['ist', 'sind', 'kann', 'können', 'muss', 'soll', 'gibt', 'brauche', 'brauchen', 'darf', 'hat', 'haben', 'wird'],
    subjects: ['ich', 'du', 'er', 'sie', 'es', 'wir', 'ihr', 'man', 'der', 'die', 'das', 'ein', 'eine', 'mein', 'meine', 'dein', 'ihre'],
    howTo: /^wie man\b/,
  },
  it: {
    complete: ["che cos'è", "cos'è"],
    wh: ['che cosa', 'cosa', 'che', 'perché', 'come', 'quando', 'dove', 'chi', 'quale', 'quali', 'quanto', 'quanta', 'quanti', 'quante'],
    verbs: ['è', 'sono', 'era', 'posso', 'può', 'possono', 'devo', 'deve', "c'è", 'ci', 'costa', 'costano', 'significa', 'serve'],
    aux: ['è', 'posso', 'può', 'devo', "c'è", 'ci sono', 'serve'],
    subjects: ['il', 'lo', 'la', 'i', 'gli', 'le', 'un', 'una', 'uno', 'mio', 'mia', 'possibile', 'necessario', 'sicuro'],
    howTo: /^come [\p{L}]+(are|ere|ire)\b/u,
  },
  nl: {
    wh: ['wat', 'waarom', 'hoe', 'wanneer', 'waar', 'wie', 'welke', 'welk', 'hoeveel', 'hoe lang'],
    verbs: ['is', 'zijn', 'was', 'waren', 'kan', 'kun', 'kunnen', 'moet', 'moeten', 'zal', 'wordt', 'worden', 'heeft', 'hebben', 'werkt', 'kost', 'kosten', 'duurt', 'betekent', 'doe', 'doet', 'mag'],
    aux: ['is', 'zijn', 'kan', 'kun', 'kunnen', 'moet', 'mag', 'heb', 'heeft', 'wordt'],
    subjects: ['ik', 'je', 'jij', 'u', 'we', 'wij', 'het', 'de', 'een', 'mijn', 'uw', 'er'],
    howTo: /^hoe (je|u|jij) [\p{L}]+ [\p{L}]+en\b|^zo\b/u,
  },
  sv: {
    wh: ['vad', 'varför', 'hur', 'när', 'var', 'vem', 'vilken', 'vilket', 'vilka', 'hur mycket', 'hur många', 'hur länge'],
    verbs: ['är', 'var', 'kan', 'ska', 'skall', 'måste', 'bör', 'har', 'hade', 'blir', 'fungerar', 'kostar', 'tar', 'betyder', 'gör', 'behöver', 'finns'],
    aux: ['är', 'kan', 'ska', 'måste', 'bör', 'har', 'finns', 'behöver', 'får'],
    subjects: ['jag', 'du', 'vi', 'ni', 'de', 'den', 'det', 'man', 'min', 'din', 'en', 'ett'],
    howTo: /^hur (man|du) [\p{L}]+\b|^så\b/u,
  },
}

/** Japanese and Korean sentence-final question endings ("…ですか", "…ますか", "…까", "…나요"). */
const CJK_QUESTION_END = /(?:か|かな|の)[。]?$|(?:까|나요|가요|니|죠)[.]?$/u
// The closing quote brings its own trailing spaces: two optional runs of spaces side by side would be
// split every way before a heading that goes on after the "?".
const QUESTION_MARK = /[?？؟]\s*(?:[)"'”’»」』]\s*)?$/u

function normalize(text: string): string {
  return text
    .toLowerCase()
    .replace(/[’`]/g, "'")
    .replace(/^[\s"'“”«»¡¿([]+/u, '')
    .replace(/\s+/g, ' ')
    .trim()
}

/** Whether `text` starts with `phrase` as whole words, and what follows it. */
function after(text: string, phrase: string): string | null {
  if (!text.startsWith(phrase)) return null
  if (phrase.endsWith("'")) return text.slice(phrase.length).trim()
  const rest = text.slice(phrase.length)
  if (rest !== '' && !/^[\s,:;-]/.test(rest)) return null
  return rest.replace(/^[\s,:;-]+/, '')
}

function firstWord(text: string): string {
  return text.split(' ')[0] ?? ''
}

function kindIn(text: string, g: Grammar): HeadingKind {
  if (g.howTo.test(text)) return 'how-to'
  for (const opening of g.complete ?? []) if (after(text, opening)) return 'question'
  // Longest interrogative first, so "how many" wins over "how".
  for (const wh of [...g.wh].sort((a, b) => b.length - a.length)) {
    const rest = after(text, wh)
    if (rest === null) continue
    if (rest === '') return 'statement'
    const next = firstWord(rest)
    if (g.verbs.includes(next)) return 'question'
    // "How long does shipping take", "Which plan is right": interrogative + noun + verb.
    if (/^(how|which|what|welche[rs]?|quel(le)?s?|cuál(es)?|qual|quale|quali|welk[e]?|vilk(en|et|a))\b/.test(wh) || wh.includes(' ')) {
      const second = rest.split(' ')[1] ?? ''
      if (!g.subjects.includes(next) && ['is', 'are', 'does', 'do', 'should', 'can', 'will', 'ist', 'sind', 'est', 'es', 'é', 'è', 'är'].includes(second)) return 'question'
    }
    return 'statement'
  }
  for (const aux of g.aux) {
    const rest = after(text, aux)
    if (rest === null || rest === '') continue
    if (g.subjects.length === 0 || g.subjects.includes(firstWord(rest))) return 'question'
  }
  return 'statement'
}

/**
 * What kind of heading `text` is. `lang` (a BCP 47 tag, e.g. the page's `<html lang>`) picks the
 * grammar; without one, a heading is a question when any covered language reads it as one.
 */
export function headingKind(text: string, lang: string | null = null): HeadingKind {
  const raw = text.trim()
  if (!raw) return 'statement'
  if (QUESTION_MARK.test(raw) || raw.startsWith('¿')) return 'question'
  const t = normalize(raw)
  const code = (lang ?? '').split('-')[0].toLowerCase()
  if (code === 'ja' || code === 'ko') return CJK_QUESTION_END.test(raw) ? 'question' : 'statement'
  // The page's lang attribute picks the grammar: lang="constructor" has none (and no Object function either).
  const grammar = ownValue(GRAMMARS, code)
  if (grammar) return kindIn(t, grammar)
  if (!code && CJK_QUESTION_END.test(raw) && /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(raw)) return 'question'
  const kinds = code ? [kindIn(t, GRAMMARS.en)] : Object.values(GRAMMARS).map((g) => kindIn(t, g))
  if (kinds.includes('how-to')) return 'how-to'
  return kinds.includes('question') ? 'question' : 'statement'
}

/** Whether a heading reads as a question. */
export function isQuestion(text: string, lang: string | null = null): boolean {
  return headingKind(text, lang) === 'question'
}

/**
 * The question headings of a page that invite an answer on the page itself: not the post titles
 * an index page links to (a heading whose whole text is a link to another page).
 */
export function pageQuestions(h: Pick<HtmlFacts, 'headings' | 'lang'>): HeadingFact[] {
  return h.headings.filter((x) => !x.linked && isQuestion(x.text, h.lang))
}
