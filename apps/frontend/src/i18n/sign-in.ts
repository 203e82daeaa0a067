/** The sign-in page's messages beyond the form's basics (in shell.ts): single sign-on, lockouts, refusals. */
export const en = {
  "signIn.sso.button": "Sign in with {name}",
  "signIn.sso.or": "or with your password",
  "signIn.sso.unavailableTitle": "Sign-in with {name} is not available right now",
  "signIn.sso.unavailablePassword": "Password sign-in still works. Details: {problem}",
  "signIn.sso.unavailableNoPassword":
    "Try again in a moment; if it lasts, ask whoever runs Stackgate to check the provider. Details: {problem}",
  "signIn.passwordOffTitle": "Password sign-in is turned off here",
  "signIn.tryAgainIn": "Too many failed sign-ins. Try again in {minutes} min.",
  "signIn.sso.refusedTitle": "Sign-in with {name} didn't work",
  "signIn.sso.error.no-role":
    "Your account at {name} has no group that gives access to Stackgate. Ask a Stackgate admin to add you to the right group at {name}, or to invite you.",
  "signIn.sso.error.unverified-email":
    "{name} has not verified your email address, and a Stackgate account with that address already exists. Verify the address at {name}, or ask a Stackgate admin.",
  "signIn.sso.error.disabled":
    "Your Stackgate account is disabled. Ask a Stackgate admin to enable it again.",
  "signIn.sso.error.no-email":
    "{name} did not share your email address with Stackgate. Ask whoever runs {name} to allow the email scope.",
  "signIn.sso.error.invitation-invalid":
    "This invitation expired, was used or was revoked, and your groups at {name} give no access. Ask a Stackgate admin for a new invitation.",
  "signIn.sso.error.expired": "That sign-in took too long or was already used. Start again.",
  "signIn.sso.error.provider-refused": "{name} did not sign you in. Start again.",
  "signIn.sso.error.invalid-response":
    "{name} sent an answer Stackgate could not verify. Start again; if it keeps failing, ask whoever runs Stackgate to check the backend's log.",
  "signIn.sso.error.unavailable": "{name} can't be reached right now. Try again in a moment.",
} as const;

export const es = () =>
  ({
    "signIn.sso.button": "Entrar con {name}",
    "signIn.sso.or": "o con tu contraseña",
    "signIn.sso.unavailableTitle": "Ahora mismo no se puede entrar con {name}",
    "signIn.sso.unavailablePassword": "Puedes entrar con tu contraseña. Detalles: {problem}",
    "signIn.sso.unavailableNoPassword":
      "Vuelve a probar en un momento; si sigue así, pide a quien administra Stackgate que revise el proveedor. Detalles: {problem}",
    "signIn.passwordOffTitle": "Aquí no se entra con contraseña",
    "signIn.tryAgainIn": "Demasiados intentos fallidos. Vuelve a probar dentro de {minutes} min.",
    "signIn.sso.refusedTitle": "No se ha podido entrar con {name}",
    "signIn.sso.error.no-role":
      "Tu cuenta de {name} no pertenece a ningún grupo con acceso a Stackgate. Pide a un administrador de Stackgate que te añada al grupo adecuado en {name} o que te invite.",
    "signIn.sso.error.unverified-email":
      "{name} no ha verificado tu dirección de correo y ya existe una cuenta de Stackgate con ella. Verifica la dirección en {name} o habla con un administrador de Stackgate.",
    "signIn.sso.error.disabled":
      "Tu cuenta de Stackgate está desactivada. Pide a un administrador de Stackgate que la vuelva a activar.",
    "signIn.sso.error.no-email":
      "{name} no ha compartido tu correo con Stackgate. Pide a quien administra {name} que permita el ámbito «email».",
    "signIn.sso.error.invitation-invalid":
      "Esta invitación caducó, ya se usó o se revocó, y tus grupos de {name} no dan acceso. Pide una invitación nueva a un administrador de Stackgate.",
    "signIn.sso.error.expired": "El inicio de sesión tardó demasiado o ya se había usado. Empieza de nuevo.",
    "signIn.sso.error.provider-refused": "{name} no ha iniciado tu sesión. Empieza de nuevo.",
    "signIn.sso.error.invalid-response":
      "{name} envió una respuesta que Stackgate no pudo verificar. Empieza de nuevo y, si sigue fallando, pide a quien administra Stackgate que revise el registro del backend.",
    "signIn.sso.error.unavailable": "Ahora mismo no hay conexión con {name}. Vuelve a probar en un momento.",
  }) as const;
