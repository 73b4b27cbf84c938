/** Language codes for hreflang validation. */

const ISO_639_1 = new Set(
  (
    'aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ' +
    'ha he hi ho hr ht hu hy hz ia id ie ig ii ik in io is it iu iw ja ji jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mo mr ' +
    'ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl ' +
    'tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu'
  ).split(' '),
)

// language (2-3 letters) [-script (4)] [-region (2 letters or 3 digits)] [-variants]
const BCP47 = /^([a-z]{2,3})(-[a-z]{4})?(-([a-z]{2}|\d{3}))?(-([a-z\d]{5,8}|\d[a-z\d]{3}))*$/i

/**
 * Whether an hreflang value is valid: `x-default` or a BCP 47 tag whose language is a known
 * ISO 639-1 code or a three-letter ISO 639-2/3 code. The value is not trimmed (" en" is invalid).
 */
export function isValidHreflang(value: string): boolean {
  if (value.toLowerCase() === 'x-default') return true
  const m = BCP47.exec(value)
  if (!m) return false
  const lang = m[1].toLowerCase()
  return lang.length === 3 ? !/^(.)\1\1$/.test(lang) : ISO_639_1.has(lang)
}
