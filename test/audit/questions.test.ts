import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { headingKind, pageQuestions } from '../../src/audit/questions'
import { extractHtmlText } from '../../src/providers/web/html'

/**
 * Heading shapes as they appear on marketing sites, blogs and help centres, with the language of
 * the page: [text, lang, kind].
 */
const HEADINGS: [string, string | null, 'question' | 'how-to' | 'statement'][] = [
  // English statements that open with an interrogative
  ['What we do', 'en', 'statement'],
  ['How it all began', 'en', 'statement'],
  ['Why customers stay', 'en', 'statement'],
  ['Who we are', 'en', 'statement'],
  ['What our customers say', 'en', 'statement'],
  ['Where we work', 'en', 'statement'],
  ['When we started', 'en', 'statement'],
  ['Why choose us', 'en', 'statement'],
  ['How it works', 'en', 'statement'],
  ['What makes us different', 'en', 'statement'],
  ['What you get', 'en', 'statement'],
  ['Which plan fits', 'en', 'statement'],
  ['How we price', 'en', 'statement'],
  ['Why BrightDesk', 'en', 'statement'],
  ["What's new", 'en', 'statement'],
  ["What's included", 'en', 'statement'],
  ['How teams use BrightDesk', 'en', 'statement'],
  ['Why it matters', 'en', 'statement'],
  ['What happens next', 'en', 'statement'],
  ['Where to find us', 'en', 'statement'],
  ['When to upgrade', 'en', 'statement'],
  ['Do more with less', 'en', 'statement'],
  ['Can openers and other tools', 'en', 'statement'],
  ['Is', 'en', 'statement'],
  ['Pricing', 'en', 'statement'],
  ['Frequently asked questions', 'en', 'statement'],
  ['Our story', 'en', 'statement'],
  // English how-tos
  ['How to pick a plan', 'en', 'how-to'],
  ['How to choose a sleeping bag', 'en', 'how-to'],
  ['How to set up SSO', 'en', 'how-to'],
  ['How To Export Your Data', 'en', 'how-to'],
  // English questions
  ['How do I reset my password?', 'en', 'question'],
  ['How do I reset my password', 'en', 'question'],
  ['What is a help desk', 'en', 'question'],
  ['What is BrightDesk?', 'en', 'question'],
  ['Why is my invoice higher this month', 'en', 'question'],
  ['How long does onboarding take', 'en', 'question'],
  ['How much does it cost', 'en', 'question'],
  ['How many agents can I add', 'en', 'question'],
  ['Which plan is right for me', 'en', 'question'],
  ['Can I cancel anytime', 'en', 'question'],
  ['Is there a free trial', 'en', 'question'],
  ['Do you offer discounts for nonprofits', 'en', 'question'],
  ['Does BrightDesk integrate with Slack?', 'en', 'question'],
  ['Should I pay yearly', 'en', 'question'],
  ['Where are my files stored', 'en', 'question'],
  ['Who can see my tickets', 'en', 'question'],
  ["What's the difference between Pro and Team", 'en', 'question'],
  ['Are there setup fees', 'en', 'question'],
  ['Will my data be migrated', 'en', 'question'],
  ['When does billing start?', 'en', 'question'],
  ['How to pick a plan?', 'en', 'question'],
  ['Ready to start?', 'en', 'question'],
  ['Still have questions?', 'en', 'question'],
  ['Pricing? Simple.', 'en', 'statement'],
  ['"Can we talk?"', 'en', 'question'],
  // Spanish
  ['Qué hacemos', 'es', 'statement'],
  ['Cómo empezó todo', 'es', 'statement'],
  ['Por qué nos eligen', 'es', 'statement'],
  ['Quiénes somos', 'es', 'statement'],
  ['Cómo elegir un plan', 'es', 'how-to'],
  ['Cómo configurar tu cuenta', 'es', 'how-to'],
  ['¿Cómo restablezco mi contraseña?', 'es', 'question'],
  ['Qué es un help desk', 'es', 'question'],
  ['Cuánto cuesta', 'es', 'question'],
  ['¿Puedo cancelar en cualquier momento?', 'es', 'question'],
  ['Puedo cancelar en cualquier momento', 'es', 'statement'],
  // Portuguese
  ['O que fazemos', 'pt', 'statement'],
  ['Como tudo começou', 'pt', 'statement'],
  ['Como escolher um plano', 'pt', 'how-to'],
  ['O que é um help desk', 'pt', 'question'],
  ['Quanto custa', 'pt', 'question'],
  ['Posso cancelar a qualquer momento?', 'pt', 'question'],
  // French
  ['Ce que nous faisons', 'fr', 'statement'],
  ['Pourquoi nos clients restent', 'fr', 'statement'],
  ['Comment tout a commencé', 'fr', 'statement'],
  ['Comment choisir une offre', 'fr', 'how-to'],
  ["Qu'est-ce qu'un help desk", 'fr', 'question'],
  ['Combien coûte BrightDesk', 'fr', 'question'],
  ['Puis-je annuler à tout moment', 'fr', 'question'],
  ['Comment réinitialiser mon mot de passe ?', 'fr', 'question'],
  // German
  ['Was wir tun', 'de', 'statement'],
  ['Wie alles begann', 'de', 'statement'],
  ['Warum Kunden bleiben', 'de', 'statement'],
  ['Wer wir sind', 'de', 'statement'],
  ['Wie man einen Tarif wählt', 'de', 'how-to'],
  ['Was ist ein Helpdesk', 'de', 'question'],
  ['Wie funktioniert die Abrechnung', 'de', 'question'],
  ['Wie lange dauert das Onboarding', 'de', 'question'],
  ['Kann ich jederzeit kündigen', 'de', 'question'],
  ['Gibt es eine kostenlose Testversion?', 'de', 'question'],
  // Italian
  ['Cosa facciamo', 'it', 'statement'],
  ['Come tutto è iniziato', 'it', 'statement'],
  ['Come scegliere un piano', 'it', 'how-to'],
  ["Cos'è un help desk", 'it', 'question'],
  ['Quanto costa', 'it', 'question'],
  ['Posso annullare in qualsiasi momento?', 'it', 'question'],
  // Dutch
  ['Wat we doen', 'nl', 'statement'],
  ['Hoe het begon', 'nl', 'statement'],
  ['Waarom klanten blijven', 'nl', 'statement'],
  ['Wat is een helpdesk', 'nl', 'question'],
  ['Hoe werkt de facturatie', 'nl', 'question'],
  ['Kan ik op elk moment opzeggen', 'nl', 'question'],
  // Swedish
  ['Vad vi gör', 'sv', 'statement'],
  ['Hur allt började', 'sv', 'statement'],
  ['Vad är en helpdesk', 'sv', 'question'],
  ['Hur fungerar faktureringen', 'sv', 'question'],
  ['Kan jag säga upp när som helst?', 'sv', 'question'],
  // Japanese, Korean, Persian, Tamil: by question marks and question endings
  ['私たちについて', 'ja', 'statement'],
  ['料金はいくらですか', 'ja', 'question'],
  ['ヘルプデスクとは何ですか？', 'ja', 'question'],
  ['회사 소개', 'ko', 'statement'],
  ['가격은 얼마입니까', 'ko', 'question'],
  ['무료 체험이 있나요?', 'ko', 'question'],
  ['درباره ما', 'fa', 'statement'],
  ['قیمت چقدر است؟', 'fa', 'question'],
  ['எங்களைப் பற்றி', 'ta', 'statement'],
  ['விலை என்ன?', 'ta', 'question'],
  // No page language: any covered language's reading counts
  ['What we do', null, 'statement'],
  ['How do I reset my password', null, 'question'],
  ['Wie alles begann', null, 'statement'],
  ['Was ist ein Helpdesk', null, 'question'],
  ['How to pick a plan', null, 'how-to'],
]

describe('question headings', () => {
  it(`classifies ${HEADINGS.length} real heading shapes in ten languages`, () => {
    expect(HEADINGS.length).toBeGreaterThanOrEqual(100)
    const wrong = HEADINGS.filter(([text, lang, kind]) => headingKind(text, lang) !== kind).map(([text, lang, kind]) => `${text} (${lang}): expected ${kind}, got ${headingKind(text, lang)}`)
    expect(wrong).toEqual([])
  })

  it('reads any heading that ends with a question mark as a question', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 60 }), fc.constantFrom('?', '？', '؟', '? ', '?"'), fc.constantFrom('en', 'de', 'fr', 'ja', null), (text, mark, lang) => {
        expect(headingKind(text + mark, lang)).toBe('question')
      }),
    )
  })

  it('never takes the post titles an index page links to as FAQ candidates', () => {
    const html = `<html lang="en"><body><h1>Blog</h1>
      <h2><a href="/blog/what-is-a-help-desk">What is a help desk?</a></h2><p>Our guide to help desks for small teams and how they grow.</p>
      <h2><a href="/blog/how-do-slas-work">How do SLAs work?</a></h2><p>Service levels explained with real examples from support teams.</p>
      <h2>Why write a blog?</h2><p>Because readers ask us the same questions every week.</p></body></html>`
    const facts = extractHtmlText(html, 'https://brightdesk.test/blog/')
    expect(facts.headings.filter((h) => h.linked).map((h) => h.text)).toEqual(['What is a help desk?', 'How do SLAs work?'])
    expect(pageQuestions(facts).map((q) => q.text)).toEqual(['Why write a blog?'])
  })
})

describe('question marks in linear time', () => {
  it('reads a heading that ends in a question mark as before, whatever follows the mark', () => {
    const before = /[?？؟]\s*[)"'”’»」』]?\s*$/u
    const tail = fc.string({ unit: fc.constantFrom('?', '？', '؟', ' ', '\t', '\u3000', ')', '"', '”', '」', '.', '!', 'x', '1'), maxLength: 12 })
    fc.assert(
      fc.property(tail, (t) => {
        // "Pricing plans" is a statement in every grammar, so only the mark can make it a question.
        const text = `Pricing plans${t}`
        expect(headingKind(text, 'en')).toBe(before.test(text.trim()) ? 'question' : 'statement')
      }),
      { numRuns: 2000 },
    )
  })

  it('returns on a long hostile heading', () => {
    expect(headingKind(`Pricing?${' '.repeat(100_000)}x`, 'en')).toBe('statement')
  })
})
