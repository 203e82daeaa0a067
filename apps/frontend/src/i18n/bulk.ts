/** Messages of the bulk actions on the Stacks page. `{stacks}` is a count phrase ("1 stack", "6 stacks"). */
export const en = {
  "bulk.stackCount.one": "1 stack",
  "bulk.stackCount.many": "{count} stacks",
  "bulk.label": "Selection",
  "bulk.selectShown": "Select all shown ({count})",
  "bulk.selectStack": "Select {stack}",
  "bulk.noneSelected": "None selected",
  "bulk.selected": "{count} selected",
  "bulk.selectedSomeHidden": "{count} selected ({hidden} not shown)",
  "bulk.clear": "Clear selection",
  "bulk.busy": "A bulk action is under way",
  "bulk.updateAll": "Update all ({count})",
  "bulk.action.pull": "Pull",
  "bulk.action.redeploy": "Redeploy",
  "bulk.action.pull-redeploy": "Pull + Redeploy",
  "bulk.action.poll-on": "Poll for updates: on",
  "bulk.action.poll-off": "Poll for updates: off",
  "bulk.action.delete": "Delete",

  "bulk.confirm.title.pull": "Pull the images of {stacks}?",
  "bulk.confirm.title.redeploy": "Redeploy {stacks}?",
  "bulk.confirm.title.pull-redeploy": "Pull and redeploy {stacks}?",
  "bulk.confirm.title.poll-on": "Turn on polling for updates on {stacks}?",
  "bulk.confirm.title.poll-off": "Turn off polling for updates on {stacks}?",
  "bulk.confirm.title.delete": "Delete {stacks}?",
  "bulk.confirm.description.pull":
    "Komodo pulls the newest images of every service of these stacks. Nothing is restarted.",
  "bulk.confirm.description.redeploy":
    "Komodo takes each of these stacks down and deploys it again: its services are unavailable meanwhile.",
  "bulk.confirm.description.pull-redeploy":
    "Komodo pulls the newest images, then takes each of these stacks down and deploys it again: its services are unavailable meanwhile.",
  "bulk.confirm.description.poll-on":
    "Komodo will check these stacks' images for updates on its own schedule.",
  "bulk.confirm.description.poll-off": "Komodo will stop checking these stacks' images for updates.",
  "bulk.confirm.description.delete":
    "Komodo stops these stacks and deletes them, with their settings. This cannot be undone.",
  "bulk.confirm.run.pull": "Pull {stacks}",
  "bulk.confirm.run.redeploy": "Redeploy {stacks}",
  "bulk.confirm.run.pull-redeploy": "Pull + Redeploy {stacks}",
  "bulk.confirm.run.poll-on": "Turn on for {stacks}",
  "bulk.confirm.run.poll-off": "Turn off for {stacks}",
  "bulk.confirm.run.delete": "Delete {stacks}",
  "bulk.confirm.stacks": "The stacks",
  "bulk.confirm.limitBefore": "Run at most",
  "bulk.confirm.limitAfter": "at a time",

  "bulk.panel.title.pull": "Pulling {stacks}",
  "bulk.panel.title.redeploy": "Redeploying {stacks}",
  "bulk.panel.title.pull-redeploy": "Pulling and redeploying {stacks}",
  "bulk.panel.title.poll-on": "Turning on polling for updates on {stacks}",
  "bulk.panel.title.poll-off": "Turning off polling for updates on {stacks}",
  "bulk.panel.title.delete": "Deleting {stacks}",
  "bulk.panel.progress": "{done} of {total} done, at most {limit} at a time",
  "bulk.panel.stacks": "Each stack",
  "bulk.panel.cancelRest": "Cancel the {count} not sent",
  "bulk.panel.close": "Close",
  "bulk.panel.leaving":
    "Closing this panel or leaving the page does not stop what was already sent to Komodo; what was not sent yet is cancelled.",
  "bulk.panel.cancelled":
    "Cancelled: {cancelled} not sent. The {sent} already sent keep running; their results are in the history.",
  "bulk.panel.cancelledOneSent":
    "Cancelled: {cancelled} not sent. The 1 already sent keeps running; its result is in the history.",
  "bulk.panel.closedWhileRunning":
    "Not sent, cancelled: {cancelled}. Already sent, still running: {running} (see the history)",

  "bulk.leave.title": "Leave this page?",
  "bulk.leave.description":
    "Leaving now cancels the stacks not sent yet: {waiting}. Those already sent ({sent}) keep running in Komodo.",
  "bulk.leave.stay": "Stay on this page",
  "bulk.leave.confirm": "Leave and cancel them",

  "bulk.state.waiting": "Waiting",
  "bulk.state.running": "Running",
  "bulk.state.succeeded": "Succeeded",
  "bulk.state.failed": "Failed",
  "bulk.state.cancelled": "Cancelled, not sent",
  "bulk.summary": "{succeeded} succeeded, {failed} failed.",
  "bulk.summaryCancelled": "{count} cancelled.",
  "bulk.summaryFailed": "Failed:",
} as const;

export const es = () =>
  ({
    "bulk.stackCount.one": "1 stack",
    "bulk.stackCount.many": "{count} stacks",
    "bulk.label": "Selección",
    "bulk.selectShown": "Seleccionar todos los visibles ({count})",
    "bulk.selectStack": "Seleccionar {stack}",
    "bulk.noneSelected": "Ninguno seleccionado",
    "bulk.selected": "{count} seleccionados",
    "bulk.selectedSomeHidden": "{count} seleccionados ({hidden} ocultos por el filtro)",
    "bulk.clear": "Quitar la selección",
    "bulk.busy": "Hay una acción en bloque en curso",
    "bulk.updateAll": "Actualizar todos ({count})",
    "bulk.action.pull": "Descargar",
    "bulk.action.redeploy": "Redesplegar",
    "bulk.action.pull-redeploy": "Descargar y redesplegar",
    "bulk.action.poll-on": "Buscar actualizaciones: sí",
    "bulk.action.poll-off": "Buscar actualizaciones: no",
    "bulk.action.delete": "Eliminar",

    "bulk.confirm.title.pull": "¿Descargar las imágenes de {stacks}?",
    "bulk.confirm.title.redeploy": "¿Redesplegar {stacks}?",
    "bulk.confirm.title.pull-redeploy": "¿Descargar y redesplegar {stacks}?",
    "bulk.confirm.title.poll-on": "¿Activar la búsqueda de actualizaciones en {stacks}?",
    "bulk.confirm.title.poll-off": "¿Desactivar la búsqueda de actualizaciones en {stacks}?",
    "bulk.confirm.title.delete": "¿Eliminar {stacks}?",
    "bulk.confirm.description.pull":
      "Komodo descarga las imágenes más recientes de todos los servicios de estos stacks. No se reinicia nada.",
    "bulk.confirm.description.redeploy":
      "Komodo detiene cada uno de estos stacks y lo vuelve a desplegar: sus servicios no estarán disponibles mientras tanto.",
    "bulk.confirm.description.pull-redeploy":
      "Komodo descarga las imágenes más recientes y después detiene cada uno de estos stacks y lo vuelve a desplegar: sus servicios no estarán disponibles mientras tanto.",
    "bulk.confirm.description.poll-on":
      "Komodo comprobará por su cuenta si hay imágenes nuevas para estos stacks.",
    "bulk.confirm.description.poll-off":
      "Komodo dejará de comprobar si hay imágenes nuevas para estos stacks.",
    "bulk.confirm.description.delete":
      "Komodo detiene estos stacks y los elimina junto con su configuración. No se puede deshacer.",
    "bulk.confirm.run.pull": "Descargar {stacks}",
    "bulk.confirm.run.redeploy": "Redesplegar {stacks}",
    "bulk.confirm.run.pull-redeploy": "Descargar y redesplegar {stacks}",
    "bulk.confirm.run.poll-on": "Activar en {stacks}",
    "bulk.confirm.run.poll-off": "Desactivar en {stacks}",
    "bulk.confirm.run.delete": "Eliminar {stacks}",
    "bulk.confirm.stacks": "Los stacks",
    "bulk.confirm.limitBefore": "Ejecutar como máximo",
    "bulk.confirm.limitAfter": "a la vez",

    "bulk.panel.title.pull": "Descargando imágenes de {stacks}",
    "bulk.panel.title.redeploy": "Redesplegando {stacks}",
    "bulk.panel.title.pull-redeploy": "Descargando y redesplegando {stacks}",
    "bulk.panel.title.poll-on": "Activando la búsqueda de actualizaciones en {stacks}",
    "bulk.panel.title.poll-off": "Desactivando la búsqueda de actualizaciones en {stacks}",
    "bulk.panel.title.delete": "Eliminando {stacks}",
    "bulk.panel.progress": "{done} de {total} terminados, como máximo {limit} a la vez",
    "bulk.panel.stacks": "Cada stack",
    "bulk.panel.cancelRest": "Cancelar los {count} no enviados",
    "bulk.panel.close": "Cerrar",
    "bulk.panel.leaving":
      "Cerrar este panel o salir de la página no detiene lo que ya se ha enviado a Komodo; lo que aún no se ha enviado se cancela.",
    "bulk.panel.cancelled":
      "Cancelados: {cancelled} sin enviar. Los {sent} ya enviados siguen en marcha; sus resultados quedan en el historial.",
    "bulk.panel.cancelledOneSent":
      "Cancelados: {cancelled} sin enviar. El que ya se envió sigue en marcha; su resultado queda en el historial.",
    "bulk.panel.closedWhileRunning":
      "Sin enviar, cancelados: {cancelled}. Ya enviados, aún en marcha: {running} (véase el historial)",

    "bulk.leave.title": "¿Salir de esta página?",
    "bulk.leave.description":
      "Si sales ahora, se cancelan los stacks aún sin enviar: {waiting}. Los ya enviados ({sent}) siguen en marcha en Komodo.",
    "bulk.leave.stay": "Quedarme en la página",
    "bulk.leave.confirm": "Salir y cancelarlos",

    "bulk.state.waiting": "En espera",
    "bulk.state.running": "En curso",
    "bulk.state.succeeded": "Correcto",
    "bulk.state.failed": "Error",
    "bulk.state.cancelled": "Cancelado, sin enviar",
    "bulk.summary": "{succeeded} correctos, {failed} con error.",
    "bulk.summaryCancelled": "{count} cancelados.",
    "bulk.summaryFailed": "Con error:",
  }) as const;
