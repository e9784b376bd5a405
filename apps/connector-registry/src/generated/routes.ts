/* tslint:disable */
/* eslint-disable */
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import type { TsoaRoute } from '@tsoa/runtime';
import {  fetchMiddlewares, ExpressTemplateService } from '@tsoa/runtime';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { ToolPacksController } from './../controllers/tool-packs/tool-packs-controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { RegisteredUsersController } from './../controllers/registered-users/registered-users-controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { LinkTokensController } from './../controllers/link-tokens/link-tokens-controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { CredentialsController } from './../controllers/credentials/credentials-controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { CustomConnectorsController } from './../controllers/connectors/custom-connectors-controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { ConnectorsController } from './../controllers/connectors/connectors-controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { ConnectionsController } from './../controllers/connections/connections-controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { ApplicationCredentialsController } from './../controllers/application-credentials/application-credentials-controller';
import { expressAuthentication } from './../authentication';
// @ts-ignore - no great way to install types from subpackage
import type { Request as ExRequest, Response as ExResponse, RequestHandler, Router } from 'express';

const expressAuthenticationRecasted = expressAuthentication as (req: ExRequest, securityName: string, scopes?: string[], res?: ExResponse) => Promise<any>;


// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

const models: TsoaRoute.Models = {
    "FieldError": {
        "dataType": "refObject",
        "properties": {
            "field": {"dataType":"string","required":true},
            "message": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ErrorBody": {
        "dataType": "refObject",
        "properties": {
            "detail": {"dataType":"string","required":true},
            "code": {"dataType":"string","required":true},
            "errors": {"dataType":"array","array":{"dataType":"refObject","ref":"FieldError"}},
        },
        "additionalProperties": {"dataType":"any"},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "AuthScope": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["INDIVIDUAL"]},{"dataType":"enum","enums":["SHARED"]},{"dataType":"enum","enums":["ORGANIZATION"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ToolPackConnectorSummary": {
        "dataType": "refObject",
        "properties": {
            "connector_id": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "slug": {"dataType":"string","required":true},
            "source_url": {"dataType":"string","required":true},
            "logo_url": {"dataType":"string","required":true},
            "categories": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "auth_scope": {"ref":"AuthScope","required":true},
            "tool_names": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "tools": {"dataType":"array","array":{"dataType":"nestedObjectLiteral","nestedProperties":{"description":{"dataType":"string","required":true},"name":{"dataType":"string","required":true}}},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ToolPackRecord": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "description": {"dataType":"string","required":true},
            "connectors": {"dataType":"array","array":{"dataType":"refObject","ref":"ToolPackConnectorSummary"},"required":true},
            "created_at": {"dataType":"string","required":true},
            "updated_at": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "PaginatedList_ToolPackRecord_": {
        "dataType": "refObject",
        "properties": {
            "count": {"dataType":"double","required":true},
            "next": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "previous": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "results": {"dataType":"array","array":{"dataType":"refObject","ref":"ToolPackRecord"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ToolPackConnectorInput": {
        "dataType": "refObject",
        "properties": {
            "connector_id": {"dataType":"string","required":true},
            "auth_scope": {"dataType":"string"},
            "tool_names": {"dataType":"array","array":{"dataType":"string"}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CreateToolPackBody": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true},
            "description": {"dataType":"string","required":true},
            "connectors": {"dataType":"array","array":{"dataType":"refObject","ref":"ToolPackConnectorInput"}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "UpdateToolPackBody": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string"},
            "description": {"dataType":"string"},
            "connectors": {"dataType":"array","array":{"dataType":"refObject","ref":"ToolPackConnectorInput"}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "Record_string.string_": {
        "dataType": "refAlias",
        "type": {"dataType":"nestedObjectLiteral","nestedProperties":{},"additionalProperties":{"dataType":"string"},"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SharedCredentialGroup": {
        "dataType": "refObject",
        "properties": {
            "origin_company_id": {"dataType":"string","required":true},
            "origin_company_name": {"dataType":"string","required":true},
            "custom_groupings": {"ref":"Record_string.string_","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "UserType": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["HUMAN"]},{"dataType":"enum","enums":["SYSTEM"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RegisteredUserRecord": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "origin_user_id": {"dataType":"string","required":true},
            "origin_user_name": {"dataType":"string","required":true},
            "shared_credential_group": {"ref":"SharedCredentialGroup","required":true},
            "user_type": {"ref":"UserType","required":true},
            "authenticated_connectors": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "is_test": {"dataType":"boolean","required":true},
            "created_at": {"dataType":"string","required":true},
            "updated_at": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "PaginatedList_RegisteredUserRecord_": {
        "dataType": "refObject",
        "properties": {
            "count": {"dataType":"double","required":true},
            "next": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "previous": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "results": {"dataType":"array","array":{"dataType":"refObject","ref":"RegisteredUserRecord"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SharedCredentialGroupBody": {
        "dataType": "refObject",
        "properties": {
            "origin_company_id": {"dataType":"string","required":true},
            "origin_company_name": {"dataType":"string","required":true},
            "custom_groupings": {"dataType":"nestedObjectLiteral","nestedProperties":{},"additionalProperties":{"dataType":"string"}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CreateRegisteredUserBody": {
        "dataType": "refObject",
        "properties": {
            "origin_user_id": {"dataType":"string","required":true},
            "origin_user_name": {"dataType":"string","required":true},
            "shared_credential_group": {"ref":"SharedCredentialGroupBody","required":true},
            "user_type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["HUMAN"]},{"dataType":"enum","enums":["SYSTEM"]},{"dataType":"enum","enums":[null]}]},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "UpdateRegisteredUserBody": {
        "dataType": "refObject",
        "properties": {
            "origin_user_id": {"dataType":"string"},
            "origin_user_name": {"dataType":"string"},
            "shared_credential_group": {"ref":"SharedCredentialGroupBody"},
            "user_type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["HUMAN"]},{"dataType":"enum","enums":["SYSTEM"]},{"dataType":"enum","enums":[null]}]},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "LinkTokenRecord": {
        "dataType": "refObject",
        "properties": {
            "link_token": {"dataType":"string","required":true},
            "magic_link_url": {"dataType":"string","required":true},
            "expires_at": {"dataType":"string","required":true},
            "connector": {"dataType":"string","required":true},
            "registered_user_id": {"dataType":"string","required":true},
            "auth_scope": {"ref":"AuthScope","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "LinkTokenInput": {
        "dataType": "refObject",
        "properties": {
            "connector": {"dataType":"string","required":true},
            "external_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}]},
            "callback_url": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}]},
            "state": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}]},
            "auth_scope": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["INDIVIDUAL"]},{"dataType":"enum","enums":["SHARED"]},{"dataType":"enum","enums":["ORGANIZATION"]},{"dataType":"enum","enums":[null]}]},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CredentialField": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true},
            "label": {"dataType":"string","required":true},
            "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["string"]},{"dataType":"enum","enums":["secret"]},{"dataType":"enum","enums":["url"]}],"required":true},
            "required": {"dataType":"boolean","required":true},
            "description": {"dataType":"string"},
            "placeholder": {"dataType":"string"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "OAuth2Config": {
        "dataType": "refObject",
        "properties": {
            "authorize_url": {"dataType":"string","required":true},
            "token_url": {"dataType":"string","required":true},
            "default_scopes": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "scope_separator": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":[" "]},{"dataType":"enum","enums":[","]}]},
            "authorize_params": {"ref":"Record_string.string_"},
            "token_auth_method": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["client_secret_basic"]},{"dataType":"enum","enums":["client_secret_post"]}]},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "AuthOption": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"nestedObjectLiteral","nestedProperties":{"credential_fields":{"dataType":"array","array":{"dataType":"refObject","ref":"CredentialField"},"required":true},"type":{"dataType":"enum","enums":["api_key"],"required":true}}},{"dataType":"nestedObjectLiteral","nestedProperties":{"credential_fields":{"dataType":"array","array":{"dataType":"refObject","ref":"CredentialField"},"required":true},"type":{"dataType":"enum","enums":["bearer_token"],"required":true}}},{"dataType":"nestedObjectLiteral","nestedProperties":{"credential_fields":{"dataType":"array","array":{"dataType":"refObject","ref":"CredentialField"},"required":true},"oauth2":{"ref":"OAuth2Config","required":true},"type":{"dataType":"enum","enums":["oauth2"],"required":true}}}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "JsonSchema": {
        "dataType": "refAlias",
        "type": {"dataType":"nestedObjectLiteral","nestedProperties":{},"additionalProperties":{"dataType":"any"},"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "Record_string.unknown_": {
        "dataType": "refAlias",
        "type": {"dataType":"nestedObjectLiteral","nestedProperties":{},"additionalProperties":{"dataType":"any"},"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ConnectorTool": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true},
            "description": {"dataType":"string","required":true},
            "input_schema": {"ref":"JsonSchema"},
            "output_schema": {"dataType":"union","subSchemas":[{"ref":"JsonSchema"},{"dataType":"enum","enums":[null]}]},
            "annotations": {"dataType":"union","subSchemas":[{"ref":"Record_string.unknown_"},{"dataType":"enum","enums":[null]}]},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ConnectorRecord": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "slug": {"dataType":"string","required":true},
            "description": {"dataType":"string","required":true},
            "logo_url": {"dataType":"string","required":true},
            "source": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["builtin"]},{"dataType":"enum","enums":["custom_mcp"]}],"required":true},
            "source_url": {"dataType":"string","required":true},
            "categories": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "auth_options": {"dataType":"array","array":{"dataType":"union","subSchemas":[{"ref":"AuthOption"},{"dataType":"nestedObjectLiteral","nestedProperties":{"type":{"dataType":"enum","enums":["none"],"required":true}}},{"dataType":"nestedObjectLiteral","nestedProperties":{"type":{"dataType":"enum","enums":["secret"],"required":true}}}]}},
            "credential_fields": {"dataType":"array","array":{"dataType":"refObject","ref":"CredentialField"}},
            "tools": {"dataType":"array","array":{"dataType":"refObject","ref":"ConnectorTool"},"required":true},
            "created_at": {"dataType":"string"},
            "tools_refreshed_at": {"dataType":"string"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DiscoveryFailure": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["blocked_destination"]},{"dataType":"enum","enums":["unreachable"]},{"dataType":"enum","enums":["tls"]},{"dataType":"enum","enums":["auth_refused"]},{"dataType":"enum","enums":["not_mcp"]},{"dataType":"enum","enums":["server_error"]},{"dataType":"enum","enums":["mcp_error"]},{"dataType":"enum","enums":["timeout"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "HandshakeFailureBody": {
        "dataType": "refObject",
        "properties": {
            "detail": {"dataType":"string","required":true},
            "code": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["bad_gateway"]},{"dataType":"enum","enums":["gateway_timeout"]},{"dataType":"enum","enums":["validation_error"]}],"required":true},
            "failure": {"ref":"DiscoveryFailure","required":true},
            "reason": {"dataType":"string"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RegistrationConflictBody": {
        "dataType": "refObject",
        "properties": {
            "detail": {"dataType":"string","required":true},
            "code": {"dataType":"enum","enums":["conflict"],"required":true},
            "conflicting": {"dataType":"nestedObjectLiteral","nestedProperties":{"connector":{"dataType":"nestedObjectLiteral","nestedProperties":{"slug":{"dataType":"string","required":true},"id":{"dataType":"string","required":true}},"required":true},"field":{"dataType":"union","subSchemas":[{"dataType":"enum","enums":["slug"]},{"dataType":"enum","enums":["url"]}],"required":true}},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CustomConnectorAuth": {
        "dataType": "refObject",
        "properties": {
            "type": {"dataType":"string","required":true},
            "secret": {"dataType":"string"},
        },
        "additionalProperties": {"dataType":"any"},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RegisterCustomConnectorBody": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true,"validators":{"minLength":{"value":1},"maxLength":{"value":255}}},
            "url": {"dataType":"string","required":true},
            "description": {"dataType":"string"},
            "slug": {"dataType":"string"},
            "auth": {"ref":"CustomConnectorAuth","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ToolDefinitionField": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["description"]},{"dataType":"enum","enums":["input_schema"]},{"dataType":"enum","enums":["output_schema"]},{"dataType":"enum","enums":["annotations"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ToolChanges": {
        "dataType": "refObject",
        "properties": {
            "added": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "removed": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "changed": {"dataType":"array","array":{"dataType":"nestedObjectLiteral","nestedProperties":{"fields":{"dataType":"array","array":{"dataType":"refAlias","ref":"ToolDefinitionField"},"required":true},"name":{"dataType":"string","required":true}}},"required":true},
            "unchanged": {"dataType":"array","array":{"dataType":"string"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RefreshConnectorResponse": {
        "dataType": "refObject",
        "properties": {
            "connector": {"ref":"ConnectorRecord","required":true},
            "changes": {"ref":"ToolChanges","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DeletionConflictBody": {
        "dataType": "refObject",
        "properties": {
            "detail": {"dataType":"string","required":true},
            "code": {"dataType":"enum","enums":["conflict"],"required":true},
            "dependents": {"dataType":"array","array":{"dataType":"nestedObjectLiteral","nestedProperties":{"name":{"dataType":"string","required":true},"id":{"dataType":"string","required":true},"type":{"dataType":"enum","enums":["tool_pack"],"required":true}}},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "PaginatedList_ConnectorRecord_": {
        "dataType": "refObject",
        "properties": {
            "count": {"dataType":"double","required":true},
            "next": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "previous": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "results": {"dataType":"array","array":{"dataType":"refObject","ref":"ConnectorRecord"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ConnectionStatus": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["ACTIVE"]},{"dataType":"enum","enums":["ERROR"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ConnectionRecord": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "connector": {"dataType":"string","required":true},
            "auth_scope": {"ref":"AuthScope","required":true},
            "registered_user_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "company_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "status": {"ref":"ConnectionStatus","required":true},
            "status_reason": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "auth_type": {"dataType":"string","required":true},
            "application_credential_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "created_at": {"dataType":"string","required":true},
            "updated_at": {"dataType":"string","required":true},
            "last_refreshed_at": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "access_token_expires_at": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "PaginatedList_ConnectionRecord_": {
        "dataType": "refObject",
        "properties": {
            "count": {"dataType":"double","required":true},
            "next": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "previous": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "results": {"dataType":"array","array":{"dataType":"refObject","ref":"ConnectionRecord"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ApplicationCredentialRecord": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "connector": {"dataType":"string","required":true},
            "external_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "client_id": {"dataType":"string","required":true},
            "has_client_secret": {"dataType":"boolean","required":true},
            "scopes": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "created_at": {"dataType":"string","required":true},
            "updated_at": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "PaginatedList_ApplicationCredentialRecord_": {
        "dataType": "refObject",
        "properties": {
            "count": {"dataType":"double","required":true},
            "next": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "previous": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "results": {"dataType":"array","array":{"dataType":"refObject","ref":"ApplicationCredentialRecord"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CreateApplicationCredentialBody": {
        "dataType": "refObject",
        "properties": {
            "connector": {"dataType":"string","required":true},
            "client_id": {"dataType":"string","required":true},
            "client_secret": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}]},
            "external_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}]},
            "scopes": {"dataType":"array","array":{"dataType":"string"}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "UpdateApplicationCredentialBody": {
        "dataType": "refObject",
        "properties": {
            "client_id": {"dataType":"string"},
            "client_secret": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}]},
            "external_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}]},
            "scopes": {"dataType":"array","array":{"dataType":"string"}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
};
const templateService = new ExpressTemplateService(models, {"noImplicitAdditionalProperties":"throw-on-extras","bodyCoercion":true});

// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa




export function RegisterRoutes(app: Router) {

    // ###########################################################################################################
    //  NOTE: If you do not see routes for all of your controllers in this file, then you might not have informed tsoa of where to look
    //      Please look into the "controllerPathGlobs" config option described in the readme: https://github.com/lukeautry/tsoa
    // ###########################################################################################################


    
        const argsToolPacksController_listToolPacks: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                search: {"in":"query","name":"search","dataType":"string"},
                page: {"in":"query","name":"page","dataType":"string"},
                page_size: {"in":"query","name":"page_size","dataType":"string"},
        };
        app.get('/api/v1/tool-packs',
            authenticateMiddleware([{"session":["view_tool_packs"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(ToolPacksController)),
            ...(fetchMiddlewares<RequestHandler>(ToolPacksController.prototype.listToolPacks)),

            async function ToolPacksController_listToolPacks(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsToolPacksController_listToolPacks, request, response });

                const controller = new ToolPacksController();

              await templateService.apiHandler({
                methodName: 'listToolPacks',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsToolPacksController_createToolPack: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                body: {"in":"body","name":"body","required":true,"ref":"CreateToolPackBody"},
        };
        app.post('/api/v1/tool-packs',
            authenticateMiddleware([{"session":["manage_tool_packs"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(ToolPacksController)),
            ...(fetchMiddlewares<RequestHandler>(ToolPacksController.prototype.createToolPack)),

            async function ToolPacksController_createToolPack(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsToolPacksController_createToolPack, request, response });

                const controller = new ToolPacksController();

              await templateService.apiHandler({
                methodName: 'createToolPack',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 201,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsToolPacksController_getToolPack: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
        };
        app.get('/api/v1/tool-packs/:id',
            authenticateMiddleware([{"session":["view_tool_packs"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(ToolPacksController)),
            ...(fetchMiddlewares<RequestHandler>(ToolPacksController.prototype.getToolPack)),

            async function ToolPacksController_getToolPack(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsToolPacksController_getToolPack, request, response });

                const controller = new ToolPacksController();

              await templateService.apiHandler({
                methodName: 'getToolPack',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsToolPacksController_updateToolPack: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"UpdateToolPackBody"},
        };
        app.patch('/api/v1/tool-packs/:id',
            authenticateMiddleware([{"session":["manage_tool_packs"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(ToolPacksController)),
            ...(fetchMiddlewares<RequestHandler>(ToolPacksController.prototype.updateToolPack)),

            async function ToolPacksController_updateToolPack(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsToolPacksController_updateToolPack, request, response });

                const controller = new ToolPacksController();

              await templateService.apiHandler({
                methodName: 'updateToolPack',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsToolPacksController_deleteToolPack: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
        };
        app.delete('/api/v1/tool-packs/:id',
            authenticateMiddleware([{"session":["manage_tool_packs"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(ToolPacksController)),
            ...(fetchMiddlewares<RequestHandler>(ToolPacksController.prototype.deleteToolPack)),

            async function ToolPacksController_deleteToolPack(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsToolPacksController_deleteToolPack, request, response });

                const controller = new ToolPacksController();

              await templateService.apiHandler({
                methodName: 'deleteToolPack',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 204,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsRegisteredUsersController_listRegisteredUsers: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                include_test_users: {"in":"query","name":"include_test_users","dataType":"string"},
                is_test: {"in":"query","name":"is_test","dataType":"string"},
                origin_user_id: {"in":"query","name":"origin_user_id","dataType":"string"},
                search: {"in":"query","name":"search","dataType":"string"},
                page: {"in":"query","name":"page","dataType":"string"},
                page_size: {"in":"query","name":"page_size","dataType":"string"},
        };
        app.get('/api/v1/registered-users',
            authenticateMiddleware([{"session":["view_registered_users"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(RegisteredUsersController)),
            ...(fetchMiddlewares<RequestHandler>(RegisteredUsersController.prototype.listRegisteredUsers)),

            async function RegisteredUsersController_listRegisteredUsers(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsRegisteredUsersController_listRegisteredUsers, request, response });

                const controller = new RegisteredUsersController();

              await templateService.apiHandler({
                methodName: 'listRegisteredUsers',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsRegisteredUsersController_createRegisteredUser: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                body: {"in":"body","name":"body","required":true,"ref":"CreateRegisteredUserBody"},
        };
        app.post('/api/v1/registered-users',
            authenticateMiddleware([{"session":["manage_registered_users"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(RegisteredUsersController)),
            ...(fetchMiddlewares<RequestHandler>(RegisteredUsersController.prototype.createRegisteredUser)),

            async function RegisteredUsersController_createRegisteredUser(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsRegisteredUsersController_createRegisteredUser, request, response });

                const controller = new RegisteredUsersController();

              await templateService.apiHandler({
                methodName: 'createRegisteredUser',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 201,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsRegisteredUsersController_getRegisteredUser: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                registered_user_id: {"in":"path","name":"registered_user_id","required":true,"dataType":"string"},
        };
        app.get('/api/v1/registered-users/:registered_user_id',
            authenticateMiddleware([{"session":["view_registered_users"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(RegisteredUsersController)),
            ...(fetchMiddlewares<RequestHandler>(RegisteredUsersController.prototype.getRegisteredUser)),

            async function RegisteredUsersController_getRegisteredUser(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsRegisteredUsersController_getRegisteredUser, request, response });

                const controller = new RegisteredUsersController();

              await templateService.apiHandler({
                methodName: 'getRegisteredUser',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsRegisteredUsersController_updateRegisteredUser: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                registered_user_id: {"in":"path","name":"registered_user_id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"UpdateRegisteredUserBody"},
        };
        app.patch('/api/v1/registered-users/:registered_user_id',
            authenticateMiddleware([{"session":["manage_registered_users"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(RegisteredUsersController)),
            ...(fetchMiddlewares<RequestHandler>(RegisteredUsersController.prototype.updateRegisteredUser)),

            async function RegisteredUsersController_updateRegisteredUser(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsRegisteredUsersController_updateRegisteredUser, request, response });

                const controller = new RegisteredUsersController();

              await templateService.apiHandler({
                methodName: 'updateRegisteredUser',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsRegisteredUsersController_deleteRegisteredUser: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                registered_user_id: {"in":"path","name":"registered_user_id","required":true,"dataType":"string"},
        };
        app.delete('/api/v1/registered-users/:registered_user_id',
            authenticateMiddleware([{"session":["manage_registered_users"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(RegisteredUsersController)),
            ...(fetchMiddlewares<RequestHandler>(RegisteredUsersController.prototype.deleteRegisteredUser)),

            async function RegisteredUsersController_deleteRegisteredUser(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsRegisteredUsersController_deleteRegisteredUser, request, response });

                const controller = new RegisteredUsersController();

              await templateService.apiHandler({
                methodName: 'deleteRegisteredUser',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 204,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsLinkTokensController_createLinkToken: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                registered_user_id: {"in":"path","name":"registered_user_id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"LinkTokenInput"},
        };
        app.post('/api/v1/registered-users/:registered_user_id/link-token',
            authenticateMiddleware([{"session":["manage_registered_users"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(LinkTokensController)),
            ...(fetchMiddlewares<RequestHandler>(LinkTokensController.prototype.createLinkToken)),

            async function LinkTokensController_createLinkToken(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsLinkTokensController_createLinkToken, request, response });

                const controller = new LinkTokensController();

              await templateService.apiHandler({
                methodName: 'createLinkToken',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 201,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsCredentialsController_deleteRegisteredUserCredential: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                registered_user_id: {"in":"path","name":"registered_user_id","required":true,"dataType":"string"},
                connector_slug: {"in":"path","name":"connector_slug","required":true,"dataType":"string"},
        };
        app.delete('/api/v1/credentials/registered-users/:registered_user_id/connectors/:connector_slug',
            authenticateMiddleware([{"session":["manage_registered_users"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(CredentialsController)),
            ...(fetchMiddlewares<RequestHandler>(CredentialsController.prototype.deleteRegisteredUserCredential)),

            async function CredentialsController_deleteRegisteredUserCredential(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsCredentialsController_deleteRegisteredUserCredential, request, response });

                const controller = new CredentialsController();

              await templateService.apiHandler({
                methodName: 'deleteRegisteredUserCredential',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 204,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsCustomConnectorsController_registerConnector: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                body: {"in":"body","name":"body","required":true,"ref":"RegisterCustomConnectorBody"},
        };
        app.post('/api/v1/connectors',
            authenticateMiddleware([{"session":["manage_connectors"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(CustomConnectorsController)),
            ...(fetchMiddlewares<RequestHandler>(CustomConnectorsController.prototype.registerConnector)),

            async function CustomConnectorsController_registerConnector(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsCustomConnectorsController_registerConnector, request, response });

                const controller = new CustomConnectorsController();

              await templateService.apiHandler({
                methodName: 'registerConnector',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsCustomConnectorsController_refreshConnector: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                slug: {"in":"path","name":"slug","required":true,"dataType":"string"},
        };
        app.post('/api/v1/connectors/:slug/refresh',
            authenticateMiddleware([{"session":["manage_connectors"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(CustomConnectorsController)),
            ...(fetchMiddlewares<RequestHandler>(CustomConnectorsController.prototype.refreshConnector)),

            async function CustomConnectorsController_refreshConnector(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsCustomConnectorsController_refreshConnector, request, response });

                const controller = new CustomConnectorsController();

              await templateService.apiHandler({
                methodName: 'refreshConnector',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsCustomConnectorsController_deleteConnector: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                slug: {"in":"path","name":"slug","required":true,"dataType":"string"},
        };
        app.delete('/api/v1/connectors/:slug',
            authenticateMiddleware([{"session":["manage_connectors"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(CustomConnectorsController)),
            ...(fetchMiddlewares<RequestHandler>(CustomConnectorsController.prototype.deleteConnector)),

            async function CustomConnectorsController_deleteConnector(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsCustomConnectorsController_deleteConnector, request, response });

                const controller = new CustomConnectorsController();

              await templateService.apiHandler({
                methodName: 'deleteConnector',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 204,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsConnectorsController_listConnectors: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                search: {"in":"query","name":"search","dataType":"string"},
                page: {"in":"query","name":"page","dataType":"string"},
                page_size: {"in":"query","name":"page_size","dataType":"string"},
        };
        app.get('/api/v1/connectors',
            authenticateMiddleware([{"session":["view_connectors"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(ConnectorsController)),
            ...(fetchMiddlewares<RequestHandler>(ConnectorsController.prototype.listConnectors)),

            async function ConnectorsController_listConnectors(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsConnectorsController_listConnectors, request, response });

                const controller = new ConnectorsController();

              await templateService.apiHandler({
                methodName: 'listConnectors',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsConnectorsController_getConnector: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                slug: {"in":"path","name":"slug","required":true,"dataType":"string"},
                auth_mode: {"in":"query","name":"auth_mode","dataType":"string"},
                include_tool_details: {"in":"query","name":"include_tool_details","dataType":"boolean"},
        };
        app.get('/api/v1/connectors/:slug',
            authenticateMiddleware([{"session":["view_connectors"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(ConnectorsController)),
            ...(fetchMiddlewares<RequestHandler>(ConnectorsController.prototype.getConnector)),

            async function ConnectorsController_getConnector(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsConnectorsController_getConnector, request, response });

                const controller = new ConnectorsController();

              await templateService.apiHandler({
                methodName: 'getConnector',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsConnectionsController_listConnections: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                auth_scope: {"in":"query","name":"auth_scope","dataType":"string"},
                company: {"in":"query","name":"company","dataType":"string"},
                connector: {"in":"query","name":"connector","dataType":"string"},
                created_at_after: {"in":"query","name":"created_at_after","dataType":"string"},
                created_at_before: {"in":"query","name":"created_at_before","dataType":"string"},
                status: {"in":"query","name":"status","dataType":"string"},
                registered_user_id: {"in":"query","name":"registered_user_id","dataType":"string"},
                page: {"in":"query","name":"page","dataType":"string"},
                page_size: {"in":"query","name":"page_size","dataType":"string"},
        };
        app.get('/api/v1/connections',
            authenticateMiddleware([{"session":["view_registered_users"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(ConnectionsController)),
            ...(fetchMiddlewares<RequestHandler>(ConnectionsController.prototype.listConnections)),

            async function ConnectionsController_listConnections(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsConnectionsController_listConnections, request, response });

                const controller = new ConnectionsController();

              await templateService.apiHandler({
                methodName: 'listConnections',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsApplicationCredentialsController_listApplicationCredentials: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                external_id: {"in":"query","name":"external_id","dataType":"string"},
                slug: {"in":"query","name":"slug","dataType":"string"},
                page: {"in":"query","name":"page","dataType":"string"},
                page_size: {"in":"query","name":"page_size","dataType":"string"},
        };
        app.get('/api/v1/application-credentials',
            authenticateMiddleware([{"session":["view_connectors"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(ApplicationCredentialsController)),
            ...(fetchMiddlewares<RequestHandler>(ApplicationCredentialsController.prototype.listApplicationCredentials)),

            async function ApplicationCredentialsController_listApplicationCredentials(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsApplicationCredentialsController_listApplicationCredentials, request, response });

                const controller = new ApplicationCredentialsController();

              await templateService.apiHandler({
                methodName: 'listApplicationCredentials',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsApplicationCredentialsController_createApplicationCredential: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                body: {"in":"body","name":"body","required":true,"ref":"CreateApplicationCredentialBody"},
        };
        app.post('/api/v1/application-credentials',
            authenticateMiddleware([{"session":["manage_connectors"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(ApplicationCredentialsController)),
            ...(fetchMiddlewares<RequestHandler>(ApplicationCredentialsController.prototype.createApplicationCredential)),

            async function ApplicationCredentialsController_createApplicationCredential(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsApplicationCredentialsController_createApplicationCredential, request, response });

                const controller = new ApplicationCredentialsController();

              await templateService.apiHandler({
                methodName: 'createApplicationCredential',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 201,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsApplicationCredentialsController_getApplicationCredential: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
        };
        app.get('/api/v1/application-credentials/:id',
            authenticateMiddleware([{"session":["view_connectors"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(ApplicationCredentialsController)),
            ...(fetchMiddlewares<RequestHandler>(ApplicationCredentialsController.prototype.getApplicationCredential)),

            async function ApplicationCredentialsController_getApplicationCredential(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsApplicationCredentialsController_getApplicationCredential, request, response });

                const controller = new ApplicationCredentialsController();

              await templateService.apiHandler({
                methodName: 'getApplicationCredential',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsApplicationCredentialsController_updateApplicationCredential: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"UpdateApplicationCredentialBody"},
        };
        app.patch('/api/v1/application-credentials/:id',
            authenticateMiddleware([{"session":["manage_connectors"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(ApplicationCredentialsController)),
            ...(fetchMiddlewares<RequestHandler>(ApplicationCredentialsController.prototype.updateApplicationCredential)),

            async function ApplicationCredentialsController_updateApplicationCredential(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsApplicationCredentialsController_updateApplicationCredential, request, response });

                const controller = new ApplicationCredentialsController();

              await templateService.apiHandler({
                methodName: 'updateApplicationCredential',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsApplicationCredentialsController_deleteApplicationCredential: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
        };
        app.delete('/api/v1/application-credentials/:id',
            authenticateMiddleware([{"session":["manage_connectors"]},{"access_key":["management:all"]}]),
            ...(fetchMiddlewares<RequestHandler>(ApplicationCredentialsController)),
            ...(fetchMiddlewares<RequestHandler>(ApplicationCredentialsController.prototype.deleteApplicationCredential)),

            async function ApplicationCredentialsController_deleteApplicationCredential(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsApplicationCredentialsController_deleteApplicationCredential, request, response });

                const controller = new ApplicationCredentialsController();

              await templateService.apiHandler({
                methodName: 'deleteApplicationCredential',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 204,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa


    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

    function authenticateMiddleware(security: TsoaRoute.Security[] = []) {
        return async function runAuthenticationMiddleware(request: any, response: any, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            // keep track of failed auth attempts so we can hand back the most
            // recent one.  This behavior was previously existing so preserving it
            // here
            const failedAttempts: any[] = [];
            const pushAndRethrow = (error: any) => {
                failedAttempts.push(error);
                throw error;
            };

            const secMethodOrPromises: Promise<any>[] = [];
            for (const secMethod of security) {
                if (Object.keys(secMethod).length > 1) {
                    const secMethodAndPromises: Promise<any>[] = [];

                    for (const name in secMethod) {
                        secMethodAndPromises.push(
                            expressAuthenticationRecasted(request, name, secMethod[name], response)
                                .catch(pushAndRethrow)
                        );
                    }

                    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

                    secMethodOrPromises.push(Promise.all(secMethodAndPromises)
                        .then(users => { return users[0]; }));
                } else {
                    for (const name in secMethod) {
                        secMethodOrPromises.push(
                            expressAuthenticationRecasted(request, name, secMethod[name], response)
                                .catch(pushAndRethrow)
                        );
                    }
                }
            }

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            try {
                request['user'] = await Promise.any(secMethodOrPromises);

                // Response was sent in middleware, abort
                if (response.writableEnded) {
                    return;
                }

                next();
            }
            catch(err) {
                // Show most recent error as response
                const error = failedAttempts.pop();
                error.status = error.status || 401;

                // Response was sent in middleware, abort
                if (response.writableEnded) {
                    return;
                }
                next(error);
            }

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        }
    }

    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
}

// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
