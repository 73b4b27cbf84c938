import { ownValue } from '../../lib/objects'

/**
 * Non-descriptive link texts per language (Lighthouse's `link-text` lists, core/audits/seo/link-text.js,
 * Apache-2.0), extended with French, Italian and Dutch entries of the same kind.
 */
export const NON_DESCRIPTIVE: Record<string, ReadonlySet<string>> = {
  en: new Set(['click here', 'click this', 'go', 'here', 'information', 'learn more', 'more', 'more info', 'more information', 'right here', 'read more', 'see more', 'start', 'this']),
  ja: new Set(['ここをクリック', 'こちらをクリック', 'リンク', '続きを読む', '続く', '全文表示']),
  es: new Set([
    'click aquí',
    'click aqui',
    'clicka aquí',
    'clicka aqui',
    'pincha aquí',
    'pincha aqui',
    'aquí',
    'aqui',
    'más',
    'mas',
    'más información',
    'más informacion',
    'mas información',
    'mas informacion',
    'este',
    'enlace',
    'este enlace',
    'empezar',
  ]),
  pt: new Set(['clique aqui', 'ir', 'mais informação', 'mais informações', 'mais', 'veja mais']),
  ko: new Set(['여기', '여기를 클릭', '클릭', '링크', '자세히', '자세히 보기', '계속', '이동', '전체 보기']),
  sv: new Set(['här', 'klicka här', 'läs mer', 'mer', 'mer info', 'mer information']),
  de: new Set(['klicke hier', 'hier klicken', 'hier', 'mehr', 'siehe', 'dies', 'das', 'weiterlesen']),
  ta: new Set(['அடுத்த பக்கம்', 'மறுபக்கம்', 'முந்தைய பக்கம்', 'முன்பக்கம்', 'மேலும் அறிக', 'மேலும் தகவலுக்கு', 'மேலும் தரவுகளுக்கு', 'தயவுசெய்து இங்கே அழுத்தவும்', 'இங்கே கிளிக் செய்யவும்']),
  fa: new Set(['اطلاعات بیشتر', 'اطلاعات', 'این', 'اینجا بزنید', 'اینجا کلیک کنید', 'اینجا', 'برو', 'بیشتر بخوانید', 'بیشتر بدانید', 'بیشتر', 'شروع']),
  fr: new Set(['cliquez ici', 'cliquer ici', 'ici', 'en savoir plus', 'plus', 'lire la suite', 'voir plus', 'suite']),
  it: new Set(['clicca qui', 'qui', 'leggi di più', 'scopri di più', 'altro', 'di più']),
  nl: new Set(['klik hier', 'hier', 'lees meer', 'meer', 'meer informatie']),
}

function isFullUrl(text: string): boolean {
  // Most link texts are not URLs: skip the (slow, throwing) parse for them.
  if (!/^https?:\/\/\S+$/i.test(text)) return false
  try {
    const u = new URL(text)
    return u.protocol === 'http:' || u.protocol === 'https:'
  } catch {
    return false
  }
}

/**
 * Whether a link's text says nothing about its target. With a known text language only that
 * language's list applies; with none (or mixed languages) every list does, as Lighthouse does.
 */
export function isNonDescriptive(text: string, lang: string | null): boolean {
  const trimmed = text.trim()
  if (!trimmed) return false
  if (isFullUrl(trimmed)) return true
  const term = trimmed.toLowerCase()
  // The page's lang attribute picks the list: lang="constructor" is a language without one, not a TypeError.
  if (lang) return ownValue(NON_DESCRIPTIVE, lang.split('-')[0].toLowerCase())?.has(term) ?? false
  return Object.values(NON_DESCRIPTIVE).some((set) => set.has(term))
}
