import type { Messages } from './en.ts';

/** The French catalogue: the same keys as en.ts (a missing or extra key does not compile). */
export const fr: Messages = {
  signIn: {
    title: 'Connexion',
    errorTitle: 'Erreur\u00a0: Connexion',
    continueTo: 'pour continuer vers',
    email: 'Adresse e-mail',
    password: 'Mot de passe',
    submit: 'Se connecter',
    codeHint:
      'Pas de mot de passe, ou vous l’avez oublié\u00a0? Nous pouvons vous envoyer par e-mail un code de connexion à la place.',
    emailCode: 'Recevoir un code de connexion par e-mail',
    forgot: 'Mot de passe oublié\u00a0?',
    passkeyHeading: 'Ou utilisez une clé d’accès',
    passkey: 'Utiliser une clé d’accès',
  },
  consent: {
    title: (app: string) => `Autoriser l’accès à ${app}`,
    headingBefore: 'Autoriser',
    headingAfter: 'à accéder à votre compte\u00a0?',
    signedInAs: 'Connecté en tant que',
    asking: 'demande à\u00a0:',
    nothingMore: 'Aucun accès supplémentaire n’est demandé.',
    allow: 'Autoriser',
    deny: 'Refuser',
    withdraw: 'Vous pourrez retirer cet accès plus tard\u00a0; l’application perdra alors ses jetons.',
  },
  signOut: {
    title: 'Déconnexion',
    signedOutTitle: 'Déconnecté',
    notSignedIn: 'Vous n’êtes pas connecté.',
    signInToAccount: 'Se connecter à votre compte',
    signedInAs: 'Vous êtes connecté en tant que',
    submit: 'Se déconnecter',
  },
  forgot: {
    title: 'Mot de passe oublié\u00a0?',
    errorTitle: 'Erreur\u00a0: Mot de passe oublié\u00a0?',
    email: 'Adresse e-mail',
    hint: 'Nous envoyons à cette adresse un lien pour choisir un nouveau mot de passe, si elle a un compte.',
    submit: 'Envoyer le lien',
    back: 'Retour à la connexion',
    sentTitle: 'Consultez vos e-mails',
    sentBefore: 'Si un compte utilise',
    sentAfter: 'un lien pour choisir un nouveau mot de passe y est en route.',
    sentRules: (minutes: number) =>
      `Le lien fonctionne une fois, pendant ${minutes}\u00a0minutes. Choisir un nouveau mot de passe vous déconnecte partout\u00a0; une deuxième étape que vous avez configurée est toujours demandée à la connexion.`,
    nothingArrived:
      'Rien reçu après quelques minutes\u00a0? Regardez dans les indésirables, vérifiez l’adresse ou demandez à nouveau.',
  },
  scopes: {
    openid: 'Savoir qui vous êtes (l’identifiant de votre compte)',
    profile: 'Voir votre nom, votre langue et votre fuseau horaire',
    email: 'Voir votre adresse e-mail',
    offline_access: 'Rester connecté quand vous ne l’utilisez pas',
    admin: 'Gérer la plateforme\u00a0: comptes, applications et leurs accès',
    other: (scope: string) => `Utiliser la permission «\u00a0${scope}\u00a0»`,
  },
  accountNav: {
    label: 'Votre compte',
    password: 'Mot de passe',
    security: 'Sécurité de connexion',
    email: 'Adresse e-mail',
    linked: 'Comptes liés',
    sessions: 'Sessions',
    apps: 'Applications connectées',
    agents: 'Agents',
    signOut: 'Déconnexion',
    someoneElse: 'Se connecter avec un autre compte',
  },
};
